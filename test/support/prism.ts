// The Prism mock of generated/openapi.json on a free port, as `npm run mock` starts it (test/e2e/mock.test.ts,
// test/sdk/prism.test.ts). stop() waits for it to exit: no process outlives the suite.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../scripts/free-port.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface RunningPrism {
  baseUrl: string;
  stop(): Promise<void>;
}

export async function startPrism(): Promise<RunningPrism> {
  const port = await freePort();
  // What `npm run mock -- --port <port>` runs (scripts/mock.ts passes SIGTERM on to Prism).
  const prism = spawn(process.execPath, ['scripts/mock.ts', '--port', String(port)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = async () => {
    if (prism.exitCode !== null || prism.signalCode !== null) return;
    const exited = new Promise((resolve) => prism.once('exit', resolve));
    prism.kill('SIGTERM');
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${out}`)), 45_000);
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Prism is listening')) {
          clearTimeout(timer);
          resolve();
        }
      };
      prism.stdout.on('data', onData);
      prism.stderr.on('data', onData);
      prism.once('exit', (code) => reject(new Error(`Prism exited (${code}):\n${out}`)));
    });
  } catch (err) {
    await stop();
    throw err;
  }
  // Keep draining its log (one line per request) so that it never blocks on a full pipe.
  prism.stdout.resume();
  prism.stderr.resume();
  return { baseUrl: `http://127.0.0.1:${port}`, stop };
}
