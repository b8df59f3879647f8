/**
 * Decompression bombs in the PDF signature reader (issue #12): a stream is inflated only up to MAX_STREAM_BYTES and
 * a document's streams together up to MAX_DOCUMENT_INFLATED_BYTES. Before, a 1 MiB PDF whose /Metadata inflated to
 * 1 GiB was inflated whole (and decoded to text): tens of seconds with the event loop blocked, gigabytes of memory.
 */
import { describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_INFLATED_BYTES, MAX_STREAM_BYTES, PdfDocument, PdfError, dictOf, isStream } from '../../../server/src/validators/pdf-signature/pdf.ts';
import { verifyPdfSignatures } from '../../../server/src/validators/pdf-signature/index.ts';
import { deflatedZeros, pdfWith } from '../../support/pdf-bombs.ts';

describe('inflating PDF streams under a limit', () => {
  it('a /Metadata stream that inflates to 256 MiB is unreadable after MAX_STREAM_BYTES, not inflated whole', async () => {
    const bomb = await deflatedZeros(256 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const doc = new PdfDocument(pdfWith(bomb));
    const st = doc.stateAt(doc.buf.length);
    const root = dictOf(doc.resolve(st.trailer?.m.get('Root'), st));
    const md = doc.resolve(root?.m.get('Metadata'), st);
    expect(isStream(md)).toBe(true);
    expect(() => doc.streamData(md as never, st)).toThrow(PdfError);
    expect(() => doc.streamData(md as never, st)).toThrow('inflates past the limit');
  }, 60_000);

  it('a stream just under the limit is read whole; the document budget stops many of them', async () => {
    const under = await deflatedZeros(MAX_STREAM_BYTES - 1024 * 1024);
    const streams = Math.ceil(MAX_DOCUMENT_INFLATED_BYTES / (MAX_STREAM_BYTES - 1024 * 1024)) + 1;
    const doc = new PdfDocument(pdfWith(under, Array(streams).fill(under)));
    const st = doc.stateAt(doc.buf.length);
    const root = dictOf(doc.resolve(st.trailer?.m.get('Root'), st))!;
    const md = doc.resolve(root.m.get('Metadata'), st);
    expect(doc.streamData(md as never, st).length).toBe(MAX_STREAM_BYTES - 1024 * 1024);
    const extra = doc.resolve(root.m.get('Extra'), st) as unknown as Array<{ t: 'ref'; num: number; gen: number }>;
    const outcomes = extra.map((ref) => {
      try {
        return doc.streamData(doc.resolve(ref as never, st) as never, st).length;
      } catch (e) {
        return (e as Error).message;
      }
    });
    // Each read until the document's budget is spent; after that every stream is refused.
    expect(outcomes.filter((o) => typeof o === 'number').length).toBeLessThan(streams);
    expect(outcomes.at(-1)).toBe('stream inflates past the limit');
  }, 60_000);

  it('verifyPdfSignatures on the bomb answers (unsigned), without reading the metadata whole', async () => {
    const pdf = pdfWith(await deflatedZeros(256 * 1024 * 1024));
    const r = await verifyPdfSignatures(pdf, { trustStore: { roots: [], source: 'none' } });
    expect(r).toMatchObject({ status: 'missing', signatures: 0 });
  }, 60_000);
});
