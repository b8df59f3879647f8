// Compares Cotejo's PAdES verdicts with poppler's `pdfsig` on the shared corpus and times both; compares
// Cotejo's `trusted` with what each source project states about trust for its own files (bench/lib/pdf-signature-trust.ts).
// Usage: node bench/pdf-signatures.ts [--runs N] > (writes bench/results/pdf-signatures.md)
// pdfsig (Debian poppler-utils) is a benchmark reference only; the product does not use it.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { verifyPdfSignatures, type PdfSignatureResult } from '../server/src/validators/pdf-signature/index.ts';
import { corpusTrustStores, SOURCE_TRUST, TRUST_DIFFERENCES, TRUST_NOTES, trustOf } from './lib/pdf-signature-trust.ts';

const run = promisify(execFile);
const DATA = join(import.meta.dirname, '../../shared/testdata/pdf-signatures');
const OUT = join(import.meta.dirname, 'results/pdf-signatures.md');
const RUNS = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 3;

type Integrity = 'intact' | 'invalid' | 'missing';
interface PdfsigVerdict {
  integrity: Integrity;
  partial: boolean; // "Not total document signed" on some signature
  text: string;
}

async function pdfsig(file: string): Promise<{ v: PdfsigVerdict; ms: number }> {
  const t0 = performance.now();
  let out = '';
  try {
    const r = await run('pdfsig', ['-nocert', file], { timeout: 60_000 });
    out = r.stdout + r.stderr;
  } catch (e) {
    const x = e as { stdout?: string; stderr?: string };
    out = (x.stdout ?? '') + (x.stderr ?? '');
  }
  const ms = performance.now() - t0;
  // one block per signature; pdfsig 22.12 does not verify document time-stamps (type "unknown",
  // "Signature has not yet been verified."): those blocks are left out of the integrity verdict
  const blocks = out.split(/Signature #\d+:/).slice(1);
  const validations: string[] = [];
  let notSigned = 0;
  for (const b of blocks) {
    if (/not signed/.test(b)) notSigned++;
    const v = /Signature Validation: (.*)/.exec(b)?.[1].trim();
    if (!v) continue;
    if (/Signature Type: unknown/.test(b) && /not yet been verified/.test(v)) continue;
    validations.push(v);
  }
  let integrity: Integrity;
  if (validations.length === 0) integrity = blocks.length > notSigned ? 'intact' : 'missing';
  else integrity = validations.every((v) => v === 'Signature is Valid.') ? 'intact' : 'invalid';
  if (blocks.length === 0) integrity = 'missing';
  const partial = /Not total document signed/.test(out);
  const skipped = blocks.length - notSigned - validations.length;
  const text = (validations.length ? `${[...new Set(validations)].join(' / ')}${partial ? ' (not total document signed)' : ''}` : notSigned ? 'signature field not signed' : 'no signatures') + (skipped > 0 ? ` + ${skipped} doc time-stamp(s) not verified by pdfsig` : '');
  return { v: { integrity, partial, text }, ms };
}

function ours(r: PdfSignatureResult): Integrity {
  return r.status === 'missing' ? 'missing' : r.status === 'invalid' ? 'invalid' : 'intact';
}

const EXPLAIN: Record<string, string> = {
  'dss/BadEncodedCMS.pdf': 'pdfsig (NSS) cannot decode the CMS (non-DER INTEGER) and shows the field as unsigned; Cotejo reports a present but corrupt signature as invalid (a corrupted signature must not look like "no signature").',
  'dss/pdf-spoofing-attack.pdf': 'pdfsig follows the current field tree: the real signature field was removed by the attacker and the forged field\'s dictionary is not in the ByteRange it claims, so pdfsig says "not signed". Cotejo verifies the original signature (modified after signing) and flags the forged dictionary as invalid.',
  'dss/pdf-with-empty-sig.pdf': 'Zero-filled /Contents placeholder: pdfsig tries to verify it ("Unknown Validation Failure"); Cotejo treats an all-zero placeholder as no signature (missing), like the DSS test.',
  'pyhanko/coverage-anomalies/base.pdf': 'Same as above: all-zero placeholder, pdfsig fails to verify it, Cotejo reports missing.',
  'node-signpdf/with-placeholder.pdf': 'Placeholder without a real CMS: pdfsig lists it as "not yet verified"; Cotejo reports missing.',
  'pyhanko/coverage-anomalies/one-byterange.pdf': 'The CMS verifies over the bytes it names, but the ByteRange does not cover the revision (2 entries). pdfsig only checks the digest; Cotejo requires full coverage (pyHanko: NONSTANDARD_COVERAGE, bottom_line False) => invalid.',
  'pyhanko/coverage-anomalies/signature-gap-too-big.pdf': 'Gap larger than the /Contents string: bytes outside the signature are unsigned. pdfsig only flags "not total document signed"; Cotejo => invalid (pyHanko agrees: bottom_line False).',
  'pyhanko/coverage-anomalies/tail-uncovered.pdf': 'ByteRange ends before the %%EOF of its revision (uncovered tail). pdfsig: valid but not total; Cotejo => invalid (pyHanko: bottom_line False).',
  'pyhanko/coverage-anomalies/weird-byterange.pdf': 'ByteRange [0 10 20 30] covers almost nothing. pdfsig: valid but not total; Cotejo => invalid (pyHanko: bottom_line False).',
  'pyhanko/ed448-shake256-nolen.pdf': 'Ed448 with SHAKE256 (RFC 8419): NSS in poppler 22.12 does not support it ("Unknown Validation Failure"); Cotejo verifies it with node:crypto, as pyHanko does.',
  'pyhanko/sig-with-ski-sid.pdf': 'SignerInfo identifies the signer by subjectKeyIdentifier: poppler 22.12 fails to find the certificate; Cotejo (and pyHanko) match it by SKI.',
  'pyhanko/extensions-direct.pdf': 'Second signature is Ed25519 (RFC 8419), unsupported by poppler 22.12 ("Document isn\'t signed or corrupted data"); Cotejo verifies it (pyHanko: valid).',
  'pyhanko/extensions-indirect.pdf': 'Same Ed25519 second signature as extensions-direct.',
  'pyhanko/extensions-update-direct.pdf': 'Same Ed25519 second signature as extensions-direct.',
  'pyhanko/extensions-update-indirect.pdf': 'Same Ed25519 second signature as extensions-direct.',
  'pyhanko/extensions-indirect-not-all-paths.pdf': 'Same Ed25519 second signature as extensions-direct; additionally Cotejo reports the disallowed change (modified), which pdfsig does not analyse.',
  'pyhanko/pdf-sig-with-econtent.pdf': 'Detached SubFilter but the CMS encapsulates content: pdfsig ignores the eContent and verifies; Cotejo rejects the structure as pyHanko does => invalid.',
};

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { mean, median, max: s[s.length - 1] };
};

const manifest: Array<{ file: string; verdict: string }> = JSON.parse(readFileSync(join(DATA, 'manifest.json'), 'utf8'));
const stores = corpusTrustStores(DATA);
const trustStore = stores.corpus;

const rows: string[] = [];
const oursMs: number[] = [];
const sigMs: number[] = [];
const disagreements: string[] = [];
let agree = 0;
// grouped by reason: reason => files
const trustDiffs = new Map<string, string[]>();
const trustNotes = new Map<string, string[]>();
const group = (m: Map<string, string[]>, k: string, f: string) => m.set(k, [...(m.get(k) ?? []), f]);
const groups = (m: Map<string, string[]>) => [...m].map(([k, fs]) => `- ${fs.map((f) => `\`${f}\``).join(', ')}: ${k}`).join('\n');
const trustTally = { agree: 0, stated: 0, asserted: 0, implied: 0, unstated: 0, store: 0, checked: 0, semantics: 0, unexplained: 0, ownStore: 0 };
const yn = (xs: boolean[]) => (xs.length === 0 ? '—' : xs.every((x) => x) ? 'yes' : xs.every((x) => !x) ? 'no' : xs.map((x) => (x ? 'yes' : 'no')).join(', '));
for (const e of manifest) {
  const pdf = new Uint8Array(readFileSync(join(DATA, e.file)));
  let r: PdfSignatureResult | null = null;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    r = await verifyPdfSignatures(pdf, { trustStore });
    times.push(performance.now() - t0);
  }
  const mine = stats(times).median;
  oursMs.push(mine);
  const sigTimes: number[] = [];
  let p: PdfsigVerdict | null = null;
  for (let i = 0; i < RUNS; i++) {
    const x = await pdfsig(join(DATA, e.file));
    p = x.v;
    sigTimes.push(x.ms);
  }
  const theirs = stats(sigTimes).median;
  sigMs.push(theirs);
  const ok = ours(r!) === p!.integrity;
  if (ok) agree++;
  else disagreements.push(e.file);
  // trust: corpus anchors, at the time the source test validates at (else the signing time); untimed
  const src = SOURCE_TRUST[e.file];
  if (!src) throw new Error(`no source trust statement for ${e.file}`);
  const at = src.at ? new Date(src.at) : undefined;
  const t = await verifyPdfSignatures(pdf, { trustStore, at });
  const got = trustOf(t, src.covers);
  let trustOk = '—';
  if (src.trusted === null) trustTally.unstated++;
  else {
    trustTally.stated++;
    trustTally[src.how!]++;
    const same = got.length > 0 && got.every((x) => x === src.trusted);
    // the same file with the source's own trust store (stand-in where the corpus lacks it)
    const own = trustOf(await verifyPdfSignatures(pdf, { trustStore: stores[src.store!], at }), src.covers);
    const ownSame = own.length > 0 && own.every((x) => x === src.trusted);
    if (ownSame) trustTally.ownStore++;
    trustOk = same ? 'yes' : '**no**';
    if (same) trustTally.agree++;
    else {
      const d = TRUST_DIFFERENCES[e.file];
      let check = '';
      if (d?.kind === 'store') {
        trustTally.store++;
        if (ownSame) trustTally.checked++;
        check = ownSame ? ' (checked: with the source\'s store Cotejo agrees)' : ' (**not confirmed** with the source\'s store)';
      } else if (d) trustTally.semantics++;
      else trustTally.unexplained++;
      group(trustDiffs, `Cotejo trusted: ${yn(got)}; source: ${src.says} — ${d ? d.reason + check : 'UNEXPLAINED'}`, e.file);
    }
  }
  if (TRUST_NOTES[e.file]) group(trustNotes, TRUST_NOTES[e.file], e.file);
  const atCell = src.at ? src.at.slice(0, 10) : 'signing time';
  const srcCell = src.trusted === null ? 'not stated' : `${src.trusted ? 'trusted' : 'not trusted'} (${src.how})${src.covers ? ` [sig ${src.covers.map((i) => i + 1).join(', ')}]` : ''}`;
  rows.push(`| ${e.file} | ${r!.status} | ${p!.text} | ${ok ? 'yes' : '**no**'} | ${yn(got)} | ${atCell} | ${srcCell} | ${trustOk} | ${mine.toFixed(1)} | ${theirs.toFixed(1)} |`);
}

const cpu = (readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1] ?? 'unknown';
const o = stats(oursMs);
const s = stats(sigMs);
const md = `# PDF signatures: Cotejo vs poppler pdfsig, and trust vs the corpus's sources

Generated by \`node bench/pdf-signatures.ts\` (${RUNS} runs per file, median per file).

Machine: ${cpus().length} CPUs (nproc), ${cpu}; Node ${process.version}; pdfsig ${'22.12.0 (Debian poppler-utils)'}.

Comparison axis: **integrity** (pdfsig has no notion of permitted vs disallowed incremental updates and
was run with \`-nocert\`, its NSS store not holding the corpus roots). Cotejo \`valid\`, \`untrusted\` and
\`modified\` count as "intact" (the signed bytes verify), \`invalid\` as invalid, \`missing\` as missing.
pdfsig "Signature is Valid." on every signature = intact; any other validation message = invalid;
"does not contain any signatures" / "not signed" = missing. Cotejo trust store: the corpus's published
anchors (${trustStore.source}), validation at the signing time. Files Cotejo reports \`modified\` count as intact on this axis;
pdfsig shows them as valid but "not total document signed", since it does not tell permitted
incremental updates (form filling, annotations, DSS, time-stamps) from disallowed ones. Times: Cotejo is
measured in-process (first file includes module warm-up); pdfsig includes process start-up.

Second axis: **trust** (no pdfsig column: it ran with \`-nocert\`). "Cotejo trusted" is \`trusted\` of each approval
signature (signing order; document time-stamps left out) with the same store of corpus anchors, validated at the
time the source test validates at ("trust at": pyHanko's \`@freeze_time\`; else the signing time, Cotejo's default,
which for DSS stands in for its current-time validation with the time-stamp as proof of existence). "Source trust"
is what the source project states for that file (bench/lib/pdf-signature-trust.ts, transcribed from its tests):
*asserted* by a test, or *implied* by its purpose (pyHanko's \`val_untrusted\`, which validates with no trust root;
DSS1469Test, whose one anchor is the point); "[sig 1]" when the statement is about the first signature only. A test
that merely runs with an empty store and asserts something else (DSS's defaults, pyHanko's diff-analysis tests)
states nothing about trust. Caveat on the store: roots/ is every self-signed certificate the collector found in
the corpus's CMS, so it also holds self-signed *signer* certificates (node-signpdf, "Lord Testerino", "Firstname
Lastname"), which makes those signatures trusted here; no source states them trusted. The same agreement is asserted in test/unit/validators/pdf-signatures.test.ts.

**Integrity agreement with pdfsig: ${agree}/${manifest.length}.**

**Trust agreement with the sources: ${trustTally.agree}/${trustTally.stated}** where the source states trust
(${trustTally.asserted} asserted, ${trustTally.implied} implied); ${trustTally.unstated} files where it does not.
Of the ${trustTally.stated - trustTally.agree} differences, ${trustTally.store} come from the trust store alone (${trustTally.checked} checked:
with the source's own store Cotejo agrees), ${trustTally.semantics} from what "trusted" means${trustTally.unexplained ? `, **${trustTally.unexplained} unexplained**` : ''}.
With each source's own trust store (as far as the corpus holds it) and time: **${trustTally.ownStore}/${trustTally.stated}**.

| | mean ms | median ms | max ms |
|---|---|---|---|
| Cotejo (in-process, per file) | ${o.mean.toFixed(1)} | ${o.median.toFixed(1)} | ${o.max.toFixed(1)} |
| pdfsig (process spawn included) | ${s.mean.toFixed(1)} | ${s.median.toFixed(1)} | ${s.max.toFixed(1)} |

| file | Cotejo status | pdfsig | agree | Cotejo trusted | trust at | source trust | trust agree | Cotejo ms | pdfsig ms |
|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

## Disagreements

${disagreements.map((f) => `- \`${f}\`: ${EXPLAIN[f] ?? 'UNEXPLAINED'}`).join('\n')}

## Trust differences (sources)

${groups(trustDiffs) || 'None.'}

## Trust notes

${groups(trustNotes) || 'None.'}
`;
writeFileSync(OUT, md);
console.log(`agreement ${agree}/${manifest.length}; disagreements: ${disagreements.join(', ')}`);
console.log(`trust agreement ${trustTally.agree}/${trustTally.stated} (${trustTally.unstated} not stated); differences: ${[...trustDiffs.values()].flat().join(', ')}`);
console.log(`ours mean ${o.mean.toFixed(1)} median ${o.median.toFixed(1)}; pdfsig mean ${s.mean.toFixed(1)} median ${s.median.toFixed(1)}`);
