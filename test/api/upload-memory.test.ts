/**
 * Memory under concurrent uploads (issue #13): the uploads of all requests together hold at most
 * PROCESS_UPLOAD_MEMORY_BYTES in memory (the rest streams to disk), documents being read and checked hold at most
 * DOCUMENT_MEMORY_BYTES (a request waits its turn), every request still gets its answer, and everything held is given
 * back, also when a client goes away mid-upload.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROCESS_UPLOAD_MEMORY_BYTES, uploadMemoryHeld, uploadsDir } from '../../server/src/http/body.ts';
import { DOCUMENT_MEMORY_BYTES, documentMemoryHeld } from '../../server/src/domain/intake/memory-gate.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { form } from '../support/files.ts';
import { noiseRgb } from '../support/noise.ts';

/** A valid JPEG of about 9 MB (noise compresses badly). */
async function bigJpeg(): Promise<Buffer> {
  const { raw, info } = noiseRgb(3600, 2500);
  return sharp(raw, info).jpeg({ quality: 95 }).toBuffer();
}

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const spooled = (app: TestApp): string[] => {
  const dir = uploadsDir(app.services.config.dataDir);
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

describe.each(DATABASES)('concurrent uploads on %s', (kind) => {
  let app: TestApp;
  let jpeg: Buffer;
  beforeAll(async () => {
    app = await startTestApp(kind);
    jpeg = await bigJpeg();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('16 uploads at once: bounded memory for uploads and documents, every one answered 200, all of it given back', async () => {
    expect(jpeg.length).toBeGreaterThan(8_000_000);
    let peakUploads = 0;
    let peakDocuments = 0;
    const sampler = setInterval(() => {
      peakUploads = Math.max(peakUploads, uploadMemoryHeld());
      peakDocuments = Math.max(peakDocuments, documentMemoryHeld());
    }, 2);
    let statuses: number[];
    try {
      statuses = await Promise.all(
        Array.from({ length: 16 }, async () => (await app.request('POST', '/v1/analyze', { body: form({ bytes: jpeg, name: 'dni_valid.jpg', type: 'image/jpeg' }, [['expect', 'es_dni']]) })).status),
      );
    } finally {
      clearInterval(sampler);
    }
    expect(statuses).toEqual(Array(16).fill(200));
    expect(peakUploads).toBeLessThanOrEqual(PROCESS_UPLOAD_MEMORY_BYTES);
    expect(peakDocuments).toBeLessThanOrEqual(DOCUMENT_MEMORY_BYTES);
    // More was uploaded than either budget: some of it went to disk, some waited for room.
    expect(16 * jpeg.length).toBeGreaterThan(PROCESS_UPLOAD_MEMORY_BYTES + DOCUMENT_MEMORY_BYTES);
    expect(peakDocuments).toBeGreaterThan(0);
    expect(uploadMemoryHeld()).toBe(0);
    expect(documentMemoryHeld()).toBe(0);
    expect(spooled(app)).toEqual([]);
  });

  it('a client that goes away mid-upload leaves nothing held: no memory, no spooled file', async () => {
    const body = form({ bytes: jpeg, name: 'dni_valid.jpg', type: 'image/jpeg' }, [['expect', 'es_dni']]);
    const req = new Request('http://x/', { method: 'POST', body });
    const bytes = Buffer.from(await req.arrayBuffer());
    const url = new URL(`${app.baseUrl}/v1/analyze`);
    await new Promise<void>((resolve) => {
      const r = http.request({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { Authorization: `Bearer ${app.account.keys.test}`, 'Content-Type': req.headers.get('content-type')!, 'Content-Length': String(bytes.length) },
      });
      r.on('error', () => resolve());
      // Two thirds of the body, then the connection is cut.
      r.write(bytes.subarray(0, Math.floor((bytes.length * 2) / 3)), () => {
        setTimeout(() => {
          r.destroy();
          resolve();
        }, 200);
      });
    });
    await until(() => uploadMemoryHeld() === 0 && documentMemoryHeld() === 0 && spooled(app).length === 0, 'the aborted upload to be let go');
    // And the server still answers.
    const ok = await app.request('POST', '/v1/analyze', { body: form({ bytes: jpeg, name: 'dni_valid.jpg', type: 'image/jpeg' }, [['expect', 'es_dni']]) });
    expect(ok.status).toBe(200);
    expect(path.basename(app.services.config.dataDir)).toMatch(/^cotejo-test-/);
  });
});
