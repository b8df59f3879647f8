// The first start, as a person sees it with the default log level: plain lines, then the banner; no JSON log line
// in between (one about the EU trusted lists, which nobody configured, read like a warning); the banner says in one
// sentence what PDF signature trust there is.
import { describe, expect, it } from 'vitest';
import { startServer, stop, tmpDir } from '../support/server-process.ts';

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
