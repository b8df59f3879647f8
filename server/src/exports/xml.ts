/**
 * XML export (xmlbuilder2): one `<analysis>` root element in the namespace `https://cotejo.eu/schemas/analysis/v1`,
 * UTF-8, escaping done by the builder. Characters that XML 1.0 forbids (most C0 controls) are replaced with U+FFFD.
 * Null or absent parts of the analysis are left out; layout in docs/exports.md.
 */
import { create } from 'xmlbuilder2';
import { fieldDate, type Analysis } from './common.ts';

export const XML_NAMESPACE = 'https://cotejo.eu/schemas/analysis/v1';

type XmlNode = ReturnType<typeof create>;

/** Attributes without null/undefined entries, stringified. */
function attrs(input: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === null || v === undefined) continue;
    out[k] = Array.isArray(v) ? v.join(' ') : String(v);
  }
  return out;
}

function valueType(name: string, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (fieldDate(name, value)) return 'date';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** Writes a JSON value into `node`: scalars as text, arrays as `<item>`, objects as `<entry key=...>`. */
function writeValue(node: XmlNode, name: string, value: unknown): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) writeValue(node.ele('item', { type: valueType('', item) }), '', item);
    return;
  }
  if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      writeValue(node.ele('entry', { key: k, type: valueType(k, v) }), k, v);
    }
    return;
  }
  const date = fieldDate(name, value);
  node.txt(date ?? String(value));
}

function optionalText(parent: XmlNode, name: string, value: string | null | undefined): void {
  if (value !== null && value !== undefined) parent.ele(name).txt(value);
}

export function renderXml(a: Analysis): Uint8Array {
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '\uFFFD' });
  const root = doc.ele(XML_NAMESPACE, 'analysis', attrs({ id: a.id, status: a.status, livemode: a.livemode }));

  optionalText(root, 'batch_id', a.batch_id);
  optionalText(root, 'created_at', a.created_at);
  optionalText(root, 'completed_at', a.completed_at);

  if (a.file) {
    root.ele('file', attrs({ mime_type: a.file.mime_type, pages: a.file.pages, size_bytes: a.file.size_bytes })).txt(a.file.name ?? '');
  }

  if (a.document) {
    const d = a.document;
    root.ele('document', attrs({ type: d.type, confidence: d.confidence, side: d.side, country: d.country })).txt(d.label ?? '');
  }

  if (a.verdict) {
    const v = a.verdict;
    const verdict = root.ele('verdict', attrs({ status: v.status, match: v.match, final_status: v.final_status }));
    const expected = verdict.ele('expected');
    for (const t of v.expected ?? []) expected.ele('type').txt(t);
    const reasons = verdict.ele('reasons');
    for (const r of v.reasons ?? []) reasons.ele('reason', attrs({ code: r.code, severity: r.severity })).txt(r.message ?? '');
  }

  const fields = root.ele('fields');
  for (const [name, f] of Object.entries(a.fields ?? {})) {
    const el = fields.ele(
      'field',
      attrs({
        name,
        type: valueType(name, f?.value),
        confidence: f?.confidence,
        validated: f?.validated,
        page: f?.source?.page,
        bbox: f?.source?.bbox,
      }),
    );
    writeValue(el, name, f?.value);
  }

  const checks = root.ele('checks');
  for (const c of a.checks ?? []) checks.ele('check', attrs({ code: c.code, passed: c.passed })).txt(c.message ?? '');

  const warnings = root.ele('warnings');
  for (const w of a.warnings ?? []) warnings.ele('warning').txt(w);

  if (a.signature) {
    const s = a.signature;
    const sig = root.ele('signature', attrs({ status: s.status, trusted: s.trusted, signatures: s.signatures }));
    optionalText(sig, 'signer', s.signer);
    optionalText(sig, 'issuer', s.issuer);
    optionalText(sig, 'signed_at', s.signed_at);
    optionalText(sig, 'trust_anchor', s.trust_anchor);
    const reasons = sig.ele('reasons');
    for (const r of s.reasons ?? []) reasons.ele('reason').txt(r);
  }

  const metadata = root.ele('metadata');
  for (const [k, v] of Object.entries(a.metadata ?? {})) metadata.ele('entry', { key: k }).txt(String(v ?? ''));

  if (a.error) root.ele('error', attrs({ code: a.error.code })).txt(a.error.message ?? '');

  const xml = doc.end({ prettyPrint: true });
  return new TextEncoder().encode(xml.endsWith('\n') ? xml : `${xml}\n`);
}
