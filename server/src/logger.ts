import pino, { type Logger } from 'pino';
import type { LogLevel } from './config.ts';

/** Structured JSON logs. Keys and secrets never reach them: anything that could hold one is redacted. */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    base: { service: 'cotejo' },
    redact: {
      paths: ['authorization', '*.authorization', 'headers.authorization', '*.headers.authorization', 'secret', '*.secret', 'key', '*.key', 'api_key', '*.api_key'],
      censor: '[redacted]',
    },
  });
}
