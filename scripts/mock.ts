// `npm run mock [-- --port N] [--host H] [other Prism options]`: the Prism mock of generated/openapi.json, on
// 127.0.0.1:4010 unless --port / --host say otherwise. (The script used to hard-code `--port 4010`, so that
// `npm run mock -- --port 19102` handed Prism two ports and it crashed.) Other options go to Prism as they are
// (`--errors`, `--dynamic`...: node_modules/.bin/prism mock --help). SIGINT and SIGTERM are passed on to Prism.
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const MOCK_DEFAULTS = { host: '127.0.0.1', port: 4010 } as const;

function fail(message: string): never {
  process.stderr.write(`npm run mock: ${message}\n`);
  process.exit(2);
}

let host: string = MOCK_DEFAULTS.host;
let port: number = MOCK_DEFAULTS.port;
const rest: string[] = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const m = /^(--port|-p|--host|-h)(?:=(.*))?$/.exec(args[i]);
  if (!m) {
    rest.push(args[i]);
    continue;
  }
  const value = m[2] ?? args[++i];
  if (value === undefined || value === '') fail(`${m[1]} needs a value`);
  if (m[1] === '--port' || m[1] === '-p') {
    port = Number(value);
    if (!/^\d+$/.test(value) || port < 1 || port > 65535) fail(`--port must be an integer from 1 to 65535 (got "${value}")`);
  } else host = value;
}

const prism = spawn(path.join(ROOT, 'node_modules/.bin/prism'), ['mock', path.join(ROOT, 'generated/openapi.json'), '--host', host, '--port', String(port), ...rest], {
  cwd: ROOT,
  env: { ...process.env, SCARF_ANALYTICS: 'false' },
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => prism.kill(signal));
prism.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
