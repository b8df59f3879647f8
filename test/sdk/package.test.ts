// The published shape of @cotejo/sdk: package.json, and a build whose JavaScript and declarations stand alone
// (only '@cotejo/webhooks' is imported from outside dist/), checked by importing dist/ and type-checking a consumer.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SDK = path.resolve(import.meta.dirname, '../../sdk');
const ROOT = path.resolve(SDK, '..');

describe('@cotejo/sdk package', () => {
  it('package.json: name, version, ESM, exports with types, node >=18, only the verifier as dependency', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(SDK, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      name: '@cotejo/sdk',
      version: '0.1.0',
      type: 'module',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
      engines: { node: '>=18' },
    });
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(['@cotejo/webhooks']);
  });

  it('builds a standalone dist/ that imports and type-checks from outside', async () => {
    execFileSync(process.execPath, [path.join(SDK, 'scripts/build.ts')], { cwd: SDK, stdio: 'pipe' });
    const dist = path.join(SDK, 'dist');
    for (const name of fs.readdirSync(dist)) {
      const text = fs.readFileSync(path.join(dist, name), 'utf8');
      const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]);
      for (const s of specifiers) expect(s.startsWith('./') || s === '@cotejo/webhooks' || s === 'node:fs/promises', `${name}: ${s}`).toBe(true);
    }
    const mod = await import(path.join(dist, 'index.js'));
    expect(typeof mod.Cotejo).toBe('function');
    expect(typeof mod.verify).toBe('function');
    expect(new mod.Cotejo({ apiKey: 'ck_test_x' }).baseURL).toBe('https://api.cotejo.eu');

    const dir = fs.mkdtempSync(path.join(SDK, '.consumer-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'consumer.ts'),
        [
          "import { Cotejo, NotFoundError, type Analysis } from '../dist/index.js';",
          "const c = new Cotejo({ apiKey: 'ck_test_x' });",
          "export async function f(): Promise<string | undefined> {",
          "  const a: Analysis = await c.analyses.create({ file: new Uint8Array(), filename: 'dni_valid.jpg', expect: 'es_dni' });",
          "  for await (const x of c.analyses.list({ limit: 5 })) x.status satisfies 'queued' | 'processing' | 'completed' | 'failed';",
          "  try { await c.analyses.retrieve(a.id); } catch (e) { if (e instanceof NotFoundError) return e.code; }",
          "  return a.verdict?.status;",
          "}",
          '',
        ].join('\n'),
      );
      // No Node types and no skipLibCheck: the declarations must stand alone on web-platform globals.
      const compilerOptions = { noEmit: true, strict: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'], types: [] };
      fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
      const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir, stdio: 'pipe' });
    } catch (err) {
      throw new Error(String((err as { stdout?: Buffer }).stdout ?? err));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  // What sdk/README.md tells users to do before the packages are published: pack both in the clone, install the two
  // tarballs in their own project (the SDK's dependency on @cotejo/webhooks@0.1.0 is met by the second tarball).
  it('`npm pack` of both packages gives tarballs that install offline in a fresh project and work there', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-pack-'));
    try {
      const packages = path.join(tmp, 'packages');
      fs.mkdirSync(packages);
      const run = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, stdio: 'pipe', encoding: 'utf8' });
      run(['pack', '-w', '@cotejo/webhooks', '-w', '@cotejo/sdk', '--pack-destination', packages], ROOT);
      expect(fs.readdirSync(packages).sort()).toEqual(['cotejo-sdk-0.1.0.tgz', 'cotejo-webhooks-0.1.0.tgz']);
      const listing = run(['pack', '--dry-run', '--json', '--ignore-scripts'], SDK);
      const files = (JSON.parse(listing) as Array<{ files: Array<{ path: string }> }>)[0].files.map((f) => f.path);
      expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/api.d.ts', 'package.json', 'README.md']));
      expect(files.filter((f) => f.startsWith('src/'))).toEqual([]);

      const app = path.join(tmp, 'my-app');
      fs.mkdirSync(app);
      fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
      run(['install', '--offline', '--no-audit', '--no-fund', '../packages/cotejo-webhooks-0.1.0.tgz', '../packages/cotejo-sdk-0.1.0.tgz'], app);
      fs.writeFileSync(
        path.join(app, 'index.js'),
        [
          "import { Cotejo, APIConnectionError } from '@cotejo/sdk';",
          "import { sign, verify } from '@cotejo/webhooks';",
          "const c = new Cotejo({ apiKey: 'ck_test_x', baseURL: 'http://127.0.0.1:1' });",
          "console.log(JSON.stringify({ baseURL: c.baseURL, verify: typeof verify, sign: typeof sign, conn: typeof APIConnectionError }));",
          '',
        ].join('\n'),
      );
      const out = JSON.parse(execFileSync(process.execPath, ['index.js'], { cwd: app, encoding: 'utf8' }));
      expect(out).toEqual({ baseURL: 'http://127.0.0.1:1', verify: 'function', sign: 'function', conn: 'function' });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      throw new Error(`${String(err)}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});
