import fs from 'node:fs';
import path from 'node:path';

/** Real files from ../shared/testdata, read at test time (never copied into the repo). */
const SHARED = path.resolve(import.meta.dirname, '../../../shared/testdata');

export const fixtures = {
  jpeg: () => fs.readFileSync(path.join(SHARED, 'documents/id-images/PassportEye/tests-data/passport-td3.jpg')),
  png: () => fs.readFileSync(path.join(SHARED, 'documents/id-images/PassportEye/tests-data/passport-td3.png')),
  pdf: () => fs.readFileSync(path.join(SHARED, 'documents/invoices/invoice2data/AmazonWebServices.pdf')),
  /** A PAdES-signed PDF (node-signpdf's test file, self-signed: untrusted with the default trust store). */
  signedPdf: () => fs.readFileSync(path.join(SHARED, 'pdf-signatures/node-signpdf/signed-once.pdf')),
};

/** A multipart body: one `file` part with the given name, plus plain fields (repeatable). */
export function form(file: { bytes: Uint8Array; name: string; type?: string } | null, fields: Array<[string, string]> = []): FormData {
  const fd = new FormData();
  if (file) fd.append('file', new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.type ?? 'application/octet-stream' }), file.name);
  for (const [k, v] of fields) fd.append(k, v);
  return fd;
}
