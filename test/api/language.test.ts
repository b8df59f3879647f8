/**
 * `language` (es, en, pt, fr) reaches every text Cotejo writes: an analysis (document label, reasons, checks, the
 * error of a failed one, the heading of an unidentified document), a classification, the events that carry them and
 * the exports (PDF report, vCard note, CSV, XLSX, XML). Values read from the document stay as read.
 *
 * The same test-mode file analysed in two languages reads the same simulated document, so the two answers can be
 * laid side by side: wherever they hold the same text, that text must be language-neutral (a code, an id, a date,
 * a number) or a value of the document; a sentence or a word that is the same in Spanish and English is a text that
 * ignored the language it was asked in.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { getDocument, VerbosityLevel } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labelOf } from '../../server/src/catalogue/index.ts';
import { listDeliveriesOfEndpoint } from '../../server/src/db/webhook-deliveries.ts';
import { LABELS } from '../../server/src/exports/index.ts';
import { runOneAnalysisJob } from '../../server/src/jobs/worker.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';
import { startHttpsFiles, type HttpsFiles } from '../support/https-files.ts';

type Language = 'es' | 'en' | 'pt' | 'fr';
const OTHERS: Language[] = ['en', 'pt', 'fr'];

/** Texts the same in Spanish and English that are right in both. */
const SAME_IN_BOTH = new Set(['no', 'error', 'Error', 'info']);

/** A code, an id, a URL, a date or time, a number: nothing to translate. */
function neutral(s: string): boolean {
  const t = s.trim().replace(/^•\s*/, '');
  return (
    !/\p{L}/u.test(t) ||
    /^[\w.:/+\-@=?&%#~|,]+$/.test(t) ||
    /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2} UTC)?$/.test(t) ||
    SAME_IN_BOTH.has(t)
  );
}

/** Spanish words and letters an English text of Cotejo's has no business holding. */
const SPANISH = /[áéíóúñ¿¡]|\b(el|la|los|las|del|documento|esperado|tipo|titular|fecha|comprobaci[oó]n|correcto|avisos?|campos?|veredicto|motivos?|archivo|p[aá]ginas|generado)\b/i;

/** Every string leaf of a JSON value, by path (`verdict.reasons.0.message`). */
function strings(value: unknown, path = '', out = new Map<string, string>()): Map<string, string> {
  if (typeof value === 'string') out.set(path, value);
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, path ? `${path}.${i}` : String(i), out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) strings(v, path ? `${path}.${k}` : k, out);
  return out;
}

/** Paths of values that come from the document or the caller, not from Cotejo. */
const FROM_OUTSIDE = /^(fields\.|metadata\.|file\.name$)/;

/** The texts Cotejo writes in an analysis or classification, by path. */
function cotejoTexts(body: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, s] of strings(body)) {
    if (/^(document\.label|verdict\.reasons\.\d+\.message|checks\.\d+\.message|error\.message)$/.test(path)) out.set(path, s);
  }
  return out;
}

/** Side by side, the same text in both must be neutral; returns the offenders (`path: text`). */
function sameTexts(a: Map<string, string>, b: Map<string, string>, outside: (key: string) => boolean = (k) => FROM_OUTSIDE.test(k)): string[] {
  const bad: string[] = [];
  for (const [key, s] of a) {
    if (b.get(key) === s && !outside(key) && !neutral(s)) bad.push(`${key}: ${s}`);
  }
  return bad;
}

async function pdfItems(bytes: Uint8Array): Promise<string[]> {
  const task = getDocument({ data: new Uint8Array(bytes), verbosity: VerbosityLevel.ERRORS });
  const pdf = await task.promise;
  const items: string[] = [];
  for (let p = 1; p <= pdf.numPages; p++) {
    const content = await (await pdf.getPage(p)).getTextContent();
    for (const item of content.items) if ('str' in item && item.str.trim() !== '') items.push(item.str);
  }
  await task.destroy();
  return items;
}

async function xlsxCells(bytes: Uint8Array): Promise<Map<string, string>> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(bytes) as never);
  const out = new Map<string, string>();
  wb.eachSheet((ws) => {
    out.set(`${ws.name}!sheet`, ws.name);
    ws.eachRow((row, r) => row.eachCell((cell, c) => typeof cell.value === 'string' && out.set(`${ws.name}!${r}:${c}`, cell.value)));
  });
  return out;
}

/** `element#n` -> its text, for the text-only elements of an XML export. */
function xmlTexts(xml: string): Map<string, string> {
  const out = new Map<string, string>();
  let n = 0;
  for (const m of xml.matchAll(/<(\w+)[^>]*>([^<]+)<\/\1>/g)) out.set(`${m[1]}#${n++}`, m[2]);
  return out;
}

describe.each(DATABASES)('every text follows `language` on %s', (kind) => {
  let app: TestApp;
  let endpointId: string;
  beforeAll(async () => {
    app = await startTestApp(kind);
    const ep = await app.request('POST', '/v1/webhook-endpoints', {
      json: { url: 'https://hooks.example.com/cotejo', events: ['analysis.completed', 'analysis.failed', 'analysis.review_required'] },
    });
    expect(ep.status).toBe(201);
    endpointId = ep.body.id;
  });
  afterAll(() => app?.close());

  const post = async (path: '/v1/analyze' | '/v1/classify', name: string, options: Record<string, unknown>) => {
    const res = await app.request('POST', path, { body: form({ bytes: fixtures.jpeg(), name }, [['options', JSON.stringify(options)]]) });
    expect(res.status).toBe(200);
    return res.body as Record<string, any>;
  };
  /** One file in the four languages. */
  const inEveryLanguage = async (path: '/v1/analyze' | '/v1/classify', name: string, options: Record<string, unknown> = {}) => {
    const out = {} as Record<Language, Record<string, any>>;
    for (const language of ['es', ...OTHERS] as Language[]) out[language] = await post(path, name, { ...options, language });
    return out;
  };
  const events = async () => {
    const byAnalysis = new Map<string, Array<{ type: string; data: Record<string, any> }>>();
    for (const d of await listDeliveriesOfEndpoint(app.services.db, endpointId, 1000)) {
      const payload = JSON.parse(d.payload) as { type: string; data: Record<string, any> };
      byAnalysis.set(payload.data.id, [...(byAnalysis.get(payload.data.id) ?? []), payload]);
    }
    return byAnalysis;
  };

  /** The answers in the four languages: Cotejo's texts differ from the Spanish ones, and English holds no Spanish. */
  const expectLocalised = (bodies: Record<Language, Record<string, any>>) => {
    const es = cotejoTexts(bodies.es);
    expect(es.size).toBeGreaterThan(0);
    for (const language of OTHERS) {
      const other = cotejoTexts(bodies[language]);
      expect([...other.keys()]).toEqual([...es.keys()]);
      for (const [path, text] of other) expect(text, `${language} ${path}`).not.toBe(es.get(path));
    }
    for (const [path, text] of cotejoTexts(bodies.en)) expect(text, `en ${path}`).not.toMatch(SPANISH);
    expect(sameTexts(strings(bodies.en), strings(bodies.es))).toEqual([]);
  };

  it('an analysis: document label, reasons and checks', async () => {
    const bodies = await inEveryLanguage('/v1/analyze', 'dni_blurry_expired.jpg', { expect: 'es_dni' });
    expect(bodies.en.verdict.reasons.map((r: { code: string }) => r.code)).toEqual(expect.arrayContaining(['type_match', 'not_expired', 'low_quality']));
    expect(bodies.en.checks.length).toBeGreaterThan(0);
    expectLocalised(bodies);
    // The quality reason names the warnings in words of the language, not by their codes.
    const lowQuality = (b: Record<string, any>) => b.verdict.reasons.find((r: { code: string }) => r.code === 'low_quality').message as string;
    expect(lowQuality(bodies.en)).toContain('blurry image');
    expect(lowQuality(bodies.es)).toContain('imagen borrosa');
    // A Spanish DNI's values stay as printed, whatever the language.
    expect(bodies.en.fields.first_name.value).toBe(bodies.es.fields.first_name.value);
    // Stored texts are those of the language the analysis was created in.
    const again = await app.request('GET', `/v1/analyses/${bodies.fr.id}`);
    expect(cotejoTexts(again.body)).toEqual(cotejoTexts(bodies.fr));
  });

  it('an unidentified document: its label, its type reason and the heading it prints', async () => {
    const bodies = await inEveryLanguage('/v1/analyze', 'scan_0001.jpg', { expect: ['es_dni'] });
    expect(bodies.en.document.type).toBe('unknown_document');
    expect(bodies.en.document.label).toBe('Unidentified document');
    expect(bodies.en.verdict.reasons[0].code).toBe('type_unknown');
    expectLocalised(bodies);
    const titles = Object.fromEntries(Object.entries(bodies).map(([l, b]) => [l, b.fields.document_title.value as string]));
    for (const language of ['es', ...OTHERS] as Language[]) {
      // A heading such a document prints, never the catalogue's name for "no type".
      expect(titles[language]).not.toBe(labelOf('unknown_document', language));
      expect(Object.values(titles).some((t) => /identifi/i.test(t))).toBe(false);
    }
    for (const language of OTHERS) expect(titles[language]).not.toBe(titles.es);
    expect(titles.en).not.toMatch(SPANISH);
  });

  it('a failed analysis: its error message', async () => {
    const bodies = await inEveryLanguage('/v1/analyze', 'dni_failed.jpg');
    expect(bodies.en.status).toBe('failed');
    expect(bodies.en.error.code).toBe('processing_failed');
    expectLocalised(bodies);
  });

  it('a classification: document label and type verdict', async () => {
    const bodies = await inEveryLanguage('/v1/classify', 'passport.jpg', { expect: 'es_dni' });
    expect(bodies.en.object).toBe('classification');
    expect(bodies.en.verdict.reasons[0].code).toBe('type_mismatch');
    expect(bodies.en.verdict.reasons[0].message).toContain(labelOf('es_dni', 'en'));
    expectLocalised(bodies);
  });

  it('events carry the texts of the language the analysis was made in', async () => {
    const completed = await inEveryLanguage('/v1/analyze', 'dni_glare.jpg', { expect: 'es_dni' });
    const failed = await inEveryLanguage('/v1/analyze', 'nie_failed.jpg');
    const sent = await events();
    for (const bodies of [completed, failed]) {
      for (const language of ['es', ...OTHERS] as Language[]) {
        const body = bodies[language];
        const got = sent.get(body.id) ?? [];
        expect(got.map((e) => e.type)).toContain(body.status === 'failed' ? 'analysis.failed' : 'analysis.completed');
        for (const e of got) expect(cotejoTexts(e.data)).toEqual(cotejoTexts(body));
      }
      const [es] = sent.get(bodies.es.id)!;
      const [en] = sent.get(bodies.en.id)!;
      expect(sameTexts(strings(en.data), strings(es.data))).toEqual([]);
    }
  });

  describe('exports', () => {
    let es: Record<string, any>;
    let en: Record<string, any>;
    const download = async (id: string, format: string) => {
      const res = await app.request('GET', `/v1/analyses/${id}/export?format=${format}`);
      expect(res.status).toBe(200);
      return res;
    };
    beforeAll(async () => {
      es = await post('/v1/analyze', 'dni_blurry_expired.jpg', { expect: 'es_dni', language: 'es' });
      en = await post('/v1/analyze', 'dni_blurry_expired.jpg', { expect: 'es_dni', language: 'en' });
    });

    /** Text of a field value as an export shows it (a long one cut with an ellipsis, then maybe a number). */
    const isFieldValue = (item: string, analysis: Record<string, any>) => {
      const [cut, ...after] = item.split('…');
      if (!neutral(after.join('…'))) return false;
      return Object.values(analysis.fields as Record<string, { value: unknown }>).some((f) => {
        const v = f.value;
        const text = Array.isArray(v) ? v.join('|') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v ?? '');
        const oneLine = (x: string) => x.replace(/\s+/g, ' ').trim();
        return cut.trim() !== '' && oneLine(text).startsWith(oneLine(cut));
      });
    };

    it('pdf: headings, labels, statuses and messages', async () => {
      const esItems = await pdfItems((await download(es.id, 'pdf')).bytes);
      const enItems = await pdfItems((await download(en.id, 'pdf')).bytes);
      expect(enItems).toContain('Cotejo — analysis report');
      const inBoth = enItems.filter((item) => esItems.includes(item) && !neutral(item) && !isFieldValue(item, en));
      expect(inBoth).toEqual([]);
      // Status values are words of the report's language too (a single English word would pass for a code above).
      const words = (language: Language, a: Record<string, any>) => [LABELS[language].statuses[a.status], LABELS[language].verdicts[a.verdict.status].toUpperCase()];
      expect(words('es', es)).not.toEqual(words('en', en));
      for (const w of words('es', es)) expect(esItems.join('\n')).toContain(w);
      for (const w of words('en', en)) expect(enItems.join('\n')).toContain(w);
      // Everything but the document's values is English.
      const spanish = enItems.filter((item) => SPANISH.test(item) && !isFieldValue(item, en));
      expect(spanish).toEqual([]);
    });

    it('vcard: the note', async () => {
      const note = (text: string) => text.replace(/\r\n /g, '').split('\r\n').find((l) => l.startsWith('NOTE:'))!;
      const esNote = note((await download(es.id, 'vcard')).text);
      const enNote = note((await download(en.id, 'vcard')).text);
      const label = labelOf('es_dni', 'en').replace(/,/g, '\\,');
      expect(enNote).toContain(label);
      expect(enNote).not.toBe(esNote);
      expect(enNote.replace(label, '')).not.toMatch(SPANISH);
    });

    it('csv, xlsx and xml: stable keys, texts in the language', async () => {
      const csv = async (id: string) => parseCsv((await download(id, 'csv')).text, { bom: true }) as string[][];
      const [esHead, esRow] = await csv(es.id);
      const [enHead, enRow] = await csv(en.id);
      // Column names are the API's own (language-neutral keys); the texts under them follow the language.
      expect(enHead).toEqual(esHead);
      expect(enHead.every(neutral)).toBe(true);
      const cells = (head: string[], row: string[]) => new Map(head.map((h, i) => [h, row[i]]));
      expect(cells(enHead, enRow).get('document_label')).toBe(labelOf('es_dni', 'en'));
      expect(sameTexts(cells(enHead, enRow), cells(esHead, esRow), (k) => /^(fields\.|metadata\.|file_name$)/.test(k))).toEqual([]);

      const esCells = await xlsxCells((await download(es.id, 'xlsx')).bytes);
      const enCells = await xlsxCells((await download(en.id, 'xlsx')).bytes);
      expect([...enCells.values()]).toContain(labelOf('es_dni', 'en'));
      const valueCell = (key: string) => /^Fields!\d+:2$/.test(key);
      expect(sameTexts(enCells, esCells, valueCell)).toEqual([]);

      const esXml = xmlTexts((await download(es.id, 'xml')).text);
      const enXml = xmlTexts((await download(en.id, 'xml')).text);
      expect([...enXml.values()]).toContain(labelOf('es_dni', 'en'));
      expect(sameTexts(enXml, esXml, (k) => /^(field|item|entry|file)#/.test(k))).toEqual([]);
    });
  });
});

describe.each(DATABASES)('a batch item that intake refuses, on %s', (kind) => {
  let app: TestApp;
  let files: HttpsFiles | undefined;
  let base = '';
  beforeAll(async () => {
    files = await startHttpsFiles((req, res) => {
      if (req.url === '/notes.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end('not an image at all');
      else res.writeHead(404).end();
    });
    base = files.base;
    app = await startTestApp(kind, { config: { allowPrivateUrls: true }, fileUrlCa: files.cert });
  });
  afterAll(async () => {
    await app?.close();
    await files?.close();
  });

  it('fails with a message in the language of the batch (Spanish keeps intake’s detail)', async () => {
    const failures = {} as Record<Language, Record<string, { code: string; message: string }>>;
    for (const language of ['es', ...OTHERS] as Language[]) {
      const items = [{ file_url: `${base}/missing.jpg` }, { file_url: `${base}/notes.jpg` }];
      const res = await app.request('POST', '/v1/batches', { json: { items, options: { language } } });
      expect(res.status).toBe(202);
      while (await runOneAnalysisJob(app.services));
      const members = await Promise.all(res.body.analyses.map(async (id: string) => (await app.request('GET', `/v1/analyses/${id}`)).body));
      failures[language] = Object.fromEntries(members.map((m) => [m.error.code, m.error]));
    }
    expect(Object.keys(failures.en).sort()).toEqual(['file_url_unreachable', 'unsupported_file_type']);
    expect(failures.es.file_url_unreachable.message).toContain('404');
    for (const code of Object.keys(failures.es)) {
      for (const language of OTHERS) expect(failures[language][code].message, `${language} ${code}`).not.toBe(failures.es[code].message);
      expect(failures.en[code].message).not.toMatch(SPANISH);
    }
  });
});
