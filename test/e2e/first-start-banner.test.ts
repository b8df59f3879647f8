// The first start, as a person sees it with the default log level: plain lines, then the banner; no JSON log line
// in between (one about the EU trusted lists, which nobody configured, read like a warning); the banner says in one
// sentence what PDF signature trust there is. And Ctrl-C while a live reading runs says it is finishing it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeMistral } from '../support/fake-mistral.ts';
import { ROOT, startServer, stop, tmpDir } from '../support/server-process.ts';

describe('npm start, first start, LOG_LEVEL unset', () => {
  it('prints no log line before the banner, and says what PDF signature trust is configured', async () => {
    const server = await startServer({ COTEJO_DATA_DIR: tmpDir(), PORT: '0', LOG_LEVEL: '', COTEJO_LIVE_READERS: 'none' });
    const text = server.out.join('');
    const before = text.slice(0, text.indexOf('Cotejo is running at'));
    expect(before.trim()).toMatch(/^Creating the embedded database in .* \(first start\)\.\.\.$/);
    expect(text).toContain(
      '\nPDF signatures: no trust anchors are configured, so every signer is reported as untrusted (COTEJO_TRUST_DIR, COTEJO_TRUSTED_LISTS_DIR: docs/pdf-signatures.md).\n',
    );
    expect(text).not.toContain('trusted lists: refresh is off');
    expect(await stop(server.child)).toBe(0);
  }, 300_000);
});

describe('Ctrl-C while a live reading is in progress', () => {
  it('says the server is finishing it, finishes it (200), then stops (exit 0)', async () => {
    const fake = await startFakeMistral();
    try {
      const server = await startServer({ COTEJO_DATA_DIR: tmpDir(), PORT: '0', MISTRAL_API_KEY: fake.apiKey, COTEJO_MISTRAL_BASE_URL: fake.url, COTEJO_LIVE_READERS: 'mrz' });
      const live = /\b(ck_live_[0-9A-Za-z]+)/.exec(server.out.join(''))![1];
      // The model answers after 3 s: the reading is in progress when Ctrl-C comes.
      fake.faults.push({ delayMs: 3000 });
      const body = new FormData();
      body.append('file', new Blob([fs.readFileSync(path.resolve(ROOT, '../shared/testdata/documents/id-images/PassportEye/tests-data/passport-td3.jpg'))]), 'p.jpg');
      body.append('options', JSON.stringify({ expect: 'passport' }));
      const answer = fetch(`${server.baseUrl}/v1/analyze`, { method: 'POST', headers: { Authorization: `Bearer ${live}` }, body });
      for (let i = 0; i < 200 && fake.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(fake.requests.length).toBe(1);
      const exited = new Promise<number | null>((resolve) => {
        server.child.removeAllListeners('exit');
        server.child.once('exit', resolve);
      });
      server.child.kill('SIGINT');
      const res = await answer;
      expect(res.status).toBe(200);
      expect(await exited).toBe(0);
      const text = server.out.join('');
      expect(text).toContain('\nStopping: finishing the request in progress first (live readings included; at most 25 s).\n');
      expect(text.trimEnd().endsWith('Stopped.')).toBe(true);
    } finally {
      await fake.close();
    }
  }, 300_000);
});
