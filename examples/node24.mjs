// Runs one of the TypeScript examples with a Node that can run TypeScript: this one if it is Node 24 or later, else
// the project's own Node 24 (node_modules/node, installed by `npm install`). Plain JavaScript, so that
// `node examples/<name>.mjs` works with whatever `node` is first on the PATH (a system Node 20 would fail on a .ts
// file with "Unknown file extension .ts" before any of its code could explain).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const EXAMPLES = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(EXAMPLES);
const NEEDED = 24;

/** The Node to use: this one, the project's, or undefined (with the reason printed). */
function nodeFor() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= NEEDED) return process.execPath;
  const candidates = [path.join(ROOT, 'node_modules', 'node', 'bin', 'node'), path.join(ROOT, 'node_modules', 'node', 'bin', 'node.exe')];
  const own = candidates.find((p) => fs.existsSync(p));
  if (own) return own;
  process.stderr.write(
    `This needs Node ${NEEDED} (this is Node ${process.version}), which the project installs: run \`npm install\` in ${ROOT} first, then run this again.\n`,
  );
  return undefined;
}

/** Runs examples/<tsFile> with the right Node, with the same arguments, and exits with its exit code. */
export function runTs(tsFile) {
  const node = nodeFor();
  if (!node) process.exit(1);
  const child = spawn(node, [path.join(EXAMPLES, tsFile), ...process.argv.slice(2)], { stdio: 'inherit' });
  // Ctrl-C reaches the child too (same process group): let it clean up and decide how to exit. A signal sent to this
  // process alone is passed on.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('error', (err) => {
    process.stderr.write(`Could not start ${node}: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
}
