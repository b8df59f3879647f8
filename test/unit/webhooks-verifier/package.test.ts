// The package itself: events.gen.ts is a fresh copy of generated/api.d.ts, the source stays runtime-neutral,
// and the build (tsc -> dist/) is reproducible and works.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { apiDtsFile, eventsGenFile, renderEventsModule } from '../../../webhooks-verifier/scripts/sync-types.ts';
import { readVectors } from './helpers.ts';

const PACKAGE_DIR = path.resolve(import.meta.dirname, '../../../webhooks-verifier');
const TSC = path.resolve(import.meta.dirname, '../../../node_modules/typescript/bin/tsc');

describe('@cotejo/webhooks package', () => {
  it('src/events.gen.ts is fresh (run `node scripts/sync-types.ts` in webhooks-verifier/ if this fails)', () => {
    expect(fs.readFileSync(eventsGenFile, 'utf8')).toBe(renderEventsModule(fs.readFileSync(apiDtsFile, 'utf8')));
  });

  it('events.gen.ts covers every WebhookEvent variant of the OpenAPI document', () => {
    const openapi = JSON.parse(fs.readFileSync(path.resolve(PACKAGE_DIR, '../generated/openapi.json'), 'utf8'));
    const mapping: Record<string, string> = openapi.components.schemas.WebhookEvent.discriminator.mapping;
    const generated = fs.readFileSync(eventsGenFile, 'utf8');
    for (const [type, ref] of Object.entries(mapping)) {
      const name = ref.split('/').at(-1)!;
      expect(generated).toContain(`export type ${name} = {`);
      expect(generated).toContain(`type: ${JSON.stringify(type)};`);
    }
  });

  it('the source uses web-platform APIs only (no Node built-ins)', () => {
    const source = fs
      .readFileSync(path.join(PACKAGE_DIR, 'src/index.ts'), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    expect(source).not.toMatch(/from\s+["']node:|require\(|\bBuffer\b|\bprocess\./);
    const imports = [...source.matchAll(/from\s+["']([^"']+)["']/g)].map((m) => m[1]);
    expect(imports.every((spec) => spec.startsWith('./'))).toBe(true);
  });

  it('package.json: published shape, no runtime dependencies', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      name: '@cotejo/webhooks',
      version: '0.1.0',
      type: 'module',
      sideEffects: false,
      engines: { node: '>=18' },
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
    });
    expect(pkg.files).toContain('dist');
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies ?? {}).toEqual({});
    expect(fs.readFileSync(path.join(PACKAGE_DIR, '.gitignore'), 'utf8')).toMatch(/^dist\/$/m);
  });

  it('the build is reproducible and the built module verifies a known answer', async () => {
    const outs = [0, 1].map((i) => fs.mkdtempSync(path.join(os.tmpdir(), `cotejo-webhooks-build-${i}-`)));
    try {
      for (const out of outs) execFileSync(process.execPath, [TSC, '-p', path.join(PACKAGE_DIR, 'tsconfig.json'), '--outDir', out]);
      const files = fs.readdirSync(outs[0]).sort();
      expect(files).toEqual(['events.gen.d.ts', 'events.gen.js', 'index.d.ts', 'index.js']);
      expect(fs.readdirSync(outs[1]).sort()).toEqual(files);
      for (const file of files) expect(fs.readFileSync(path.join(outs[1], file))).toEqual(fs.readFileSync(path.join(outs[0], file)));

      const built = await import(pathToFileURL(path.join(outs[0], 'index.js')).href);
      const v = readVectors().known_answer[0];
      expect(await built.sign(v.secret, { id: v.msg_id, timestamp: v.timestamp, body: v.payload })).toBe(v.expected_signature);
      const headers = { 'webhook-id': v.msg_id, 'webhook-timestamp': String(v.timestamp), 'webhook-signature': v.expected_signature };
      await expect(built.verify(v.secret, headers, v.payload, { now: v.timestamp })).resolves.toEqual(JSON.parse(v.payload));
    } finally {
      for (const out of outs) fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
