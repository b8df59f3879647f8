// Builds dist/ of @cotejo/sdk: `node scripts/build.ts` (or `npm run build` in sdk/).
//
// In the repository the sources import two things from outside the package: the API's generated types
// (../../generated/api.d.ts, type-only) and the webhook verifier (../../webhooks-verifier/src/index.ts). The build
// stages a copy of src/ in .build/src with those specifiers rewritten (to ./api.js, next to a copy of api.d.ts, and to
// the '@cotejo/webhooks' package), compiles it with tsconfig.build.json, and copies api.d.ts into dist/, so the
// published JavaScript and declarations stand alone (their only import is '@cotejo/webhooks').

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const sdkDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rootDir = path.resolve(sdkDir, '..');
const stage = path.join(sdkDir, '.build', 'src');
const dist = path.join(sdkDir, 'dist');
const apiDts = path.join(rootDir, 'generated', 'api.d.ts');

export const REWRITES: Array<[string, string]> = [
  ["'../../generated/api.d.ts'", "'./api.js'"],
  ["'../../webhooks-verifier/src/index.ts'", "'@cotejo/webhooks'"],
];

export function rewrite(source: string): string {
  let out = source;
  for (const [from, to] of REWRITES) out = out.split(from).join(to);
  if (/from '\.\.\//.test(out)) throw new Error('a source still imports from outside sdk/src');
  return out;
}

function main(): void {
  fs.rmSync(path.join(sdkDir, '.build'), { recursive: true, force: true });
  fs.rmSync(dist, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  for (const name of fs.readdirSync(path.join(sdkDir, 'src'))) {
    if (!name.endsWith('.ts')) continue;
    fs.writeFileSync(path.join(stage, name), rewrite(fs.readFileSync(path.join(sdkDir, 'src', name), 'utf8')));
  }
  fs.copyFileSync(apiDts, path.join(stage, 'api.d.ts'));

  // '@cotejo/webhooks' resolves to the workspace package; its declarations come from its own build.
  if (!fs.existsSync(path.join(rootDir, 'webhooks-verifier', 'dist', 'index.d.ts'))) {
    execFileSync('npm', ['run', 'build', '-w', '@cotejo/webhooks'], { cwd: rootDir, stdio: 'inherit' });
  }
  const tsc = path.join(rootDir, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', path.join(sdkDir, 'tsconfig.build.json')], { cwd: sdkDir, stdio: 'inherit' });
  fs.copyFileSync(apiDts, path.join(dist, 'api.d.ts'));
  fs.rmSync(path.join(sdkDir, '.build'), { recursive: true, force: true });
  console.log(`built ${path.relative(rootDir, dist)}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
