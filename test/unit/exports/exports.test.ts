import { describe, expect, it } from 'vitest';
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { getDocument, VerbosityLevel } from 'pdfjs-dist/legacy/build/pdf.mjs';
import {
  EXPORT_FORMATS,
  guardFormula,
  renderAnalysesExport,
  renderAnalysisExport,
  XML_NAMESPACE,
  type Analysis,
} from '../../../server/src/exports/index.ts';
import { dniAnalysis, failedAnalysis, GENERATED_AT, invoiceAnalysis } from './fixtures.ts';

const utf8 = (bytes: Uint8Array) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);

async function readWorkbook(bytes: Uint8Array) {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  return wb;
}

/** Sheet rows as arrays of cell values (1-based columns, index 0 dropped). */
function sheetRows(ws: ExcelJS.Worksheet): unknown[][] {
  const rows: unknown[][] = [];
  ws.eachRow({ includeEmpty: true }, (row) => {
    rows.push((row.values as unknown[]).slice(1));
  });
  return rows;
}

async function pdfText(bytes: Uint8Array): Promise<{ pages: number; text: string; info: Record<string, unknown> }> {
  const task = getDocument({ data: new Uint8Array(bytes), verbosity: VerbosityLevel.ERRORS });
  const pdf = await task.promise;
  const lines: string[] = [];
  for (let p = 1; p <= pdf.numPages; p++) {
    const page = await pdf.getPage(p);
    const content = await page.getTextContent();
    for (const item of content.items) if ('str' in item) lines.push(item.str);
  }
  const meta = await pdf.getMetadata();
  const pages = pdf.numPages;
  await task.destroy();
  return { pages, text: lines.join('\n'), info: meta.info as Record<string, unknown> };
}

/** vCard content lines: CRLF split, then unfolded. */
function unfoldVcard(text: string): string[] {
  return text.replace(/\r\n /g, '').split('\r\n').filter(Boolean);
}

describe('renderAnalysisExport: common behaviour', () => {
  const expected: Record<string, [string, string]> = {
    json: ['application/json', 'json'],
    csv: ['text/csv; charset=utf-8', 'csv'],
    xlsx: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'],
    xml: ['application/xml', 'xml'],
    vcard: ['text/vcard; charset=utf-8', 'vcf'],
    pdf: ['application/pdf', 'pdf'],
  };

  for (const format of EXPORT_FORMATS) {
    it(`${format}: content type, file name, and no throw for failed/minimal analyses`, async () => {
      for (const a of [dniAnalysis(), failedAnalysis(), invoiceAnalysis()]) {
        const r = await renderAnalysisExport(format, a, { generatedAt: GENERATED_AT });
        expect(r.contentType).toBe(expected[format][0]);
        expect(r.filename).toBe(`${a.id}.${expected[format][1]}`);
        expect(r.bytes).toBeInstanceOf(Uint8Array);
        expect(r.bytes.length).toBeGreaterThan(0);
      }
    });
  }

  it('rejects an unknown format', async () => {
    await expect(renderAnalysisExport('docx' as never, dniAnalysis())).rejects.toThrow(/Unknown export format/);
  });
});

describe('json', () => {
  it('is the analysis as the API returns it, pretty-printed UTF-8', async () => {
    const a = dniAnalysis();
    const r = await renderAnalysisExport('json', a);
    const text = utf8(r.bytes);
    expect(JSON.parse(text)).toEqual(a);
    expect(text).toContain('\n  "id": "an_01JPB4X9R2C8H5M7P3Q6S9T1VZ"');
    expect(text).toContain('MARÍA JOSÉ'); // not \u-escaped
  });
});

describe('csv', () => {
  it('has a BOM, CRLF records, the documented columns and values', async () => {
    const r = await renderAnalysisExport('csv', dniAnalysis());
    expect([...r.bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = utf8(r.bytes);
    expect(text).toMatch(/\r\n/);
    expect(text.replace(/"[^"]*"/g, '').match(/(?<!\r)\n/)).toBeNull();

    const records: string[][] = parseCsv(r.bytes, { bom: true, relax_column_count: false });
    expect(records).toHaveLength(2);
    const [header, row] = records;
    expect(header.slice(0, 14)).toEqual([
      'id', 'status', 'created_at', 'completed_at', 'file_name', 'document_type', 'document_label',
      'document_confidence', 'document_country', 'verdict_status', 'verdict_final_status', 'expected_types',
      'warnings', 'checks',
    ]);
    const rec = Object.fromEntries(header.map((h, i) => [h, row[i]]));
    expect(rec).toMatchObject({
      id: 'an_01JPB4X9R2C8H5M7P3Q6S9T1VZ',
      status: 'completed',
      created_at: '2025-03-14T10:21:07Z',
      file_name: 'dni_valid.jpg',
      document_type: 'es_dni',
      document_label: 'DNI español',
      document_confidence: '0.98',
      document_country: 'ESP',
      verdict_status: 'review',
      verdict_final_status: '',
      expected_types: 'es_dni|es_nie',
      warnings: 'glare',
      checks: 'nif_check_digit=true|mrz_checksums=false',
      'fields.first_name': 'MARÍA JOSÉ',
      'fields.birth_date': '1985-07-21',
      'fields.expiry_date': '2031-05-03', // date-time value of a date field: date only
      'fields.address': 'CALLE DE LA PRINCESA, 25; PISO 3º IZQUIERDA, ESCALERA B, URBANIZACIÓN LOS ÁLAMOS\\NORTE',
      'fields.remarks': `Tom & "Jerry" <b>'s</b>`,
      'metadata.customer_id': 'cus_4821',
    });
    // field columns follow the analysis order, metadata columns come last
    const fieldCols = header.filter((h) => h.startsWith('fields.'));
    expect(fieldCols.slice(0, 3)).toEqual(['fields.first_name', 'fields.last_name', 'fields.second_last_name']);
    expect(header.at(-1)).toBe('metadata.note');
  });

  it('guards against formula injection', async () => {
    const a = dniAnalysis();
    a.metadata = { ...a.metadata, '=evil': '@SUM(1)', tab: '\tcmd', cr: '\rcmd', minus: '-2+3' };
    const r = await renderAnalysisExport('csv', a);
    const [header, row] = parseCsv(r.bytes, { bom: true }) as string[][];
    const rec = Object.fromEntries(header.map((h, i) => [h, row[i]]));
    expect(rec['fields.reference']).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(rec['metadata.note']).toBe(`'+SUM(A1:A9)`);
    expect(header).toContain('metadata.=evil');
    expect(rec['metadata.=evil']).toBe(`'@SUM(1)`);
    expect(rec['metadata.tab']).toBe(`'\tcmd`);
    expect(rec['metadata.cr']).toBe(`'\rcmd`);
    expect(rec['metadata.minus']).toBe(`'-2+3`);
    expect(guardFormula('=1')).toBe(`'=1`);
    expect(guardFormula('normal')).toBe('normal');
    expect(guardFormula('')).toBe('');
  });

  it('renders a failed analysis with empty cells', async () => {
    const r = await renderAnalysisExport('csv', failedAnalysis());
    const [header, row] = parseCsv(r.bytes, { bom: true }) as string[][];
    expect(header).toHaveLength(14);
    expect(row[1]).toBe('failed');
    expect(row.slice(5)).toEqual(Array(9).fill(''));
  });
});

describe('csv (several analyses)', () => {
  it('has one row per analysis and the union of field and metadata columns', async () => {
    const analyses = [dniAnalysis(), failedAnalysis(), invoiceAnalysis()];
    const r = await renderAnalysesExport('csv', analyses, { name: 'bat_01JPB52H7K9M3N5P8Q2R4S6T0V' });
    expect(r.filename).toBe('bat_01JPB52H7K9M3N5P8Q2R4S6T0V.csv');
    expect(r.contentType).toBe('text/csv; charset=utf-8');
    const records: Record<string, string>[] = parseCsv(r.bytes, { bom: true, columns: true });
    expect(records.map((x) => x.id)).toEqual(analyses.map((a) => a.id));
    const cols = Object.keys(records[0]);
    // first-seen order: DNI fields first, then the invoice-only ones; issue_date is shared
    expect(cols.filter((c) => c === 'fields.issue_date')).toHaveLength(1);
    expect(cols.indexOf('fields.invoice_number')).toBeGreaterThan(cols.indexOf('fields.reference'));
    expect(cols.slice(-3)).toEqual(['metadata.customer_id', 'metadata.note', 'metadata.order_id']);
    const [dni, failed, invoice] = records;
    expect(dni['fields.invoice_number']).toBe('');
    expect(failed.status).toBe('failed');
    expect(failed['fields.first_name']).toBe('');
    expect(invoice['fields.issue_date']).toBe('2025-03-01');
    expect(invoice['fields.total_amount']).toBe('1210.5');
    expect(invoice['fields.discount']).toBe('-5'); // a JSON number is not a formula
    expect(invoice['fields.line_items']).toBe('Consultoría|Formación');
    expect(invoice['fields.issuer_name']).toBe('Façade Conseil, S.L.');
    expect(invoice['metadata.order_id']).toBe('PO-77');
    expect(invoice['metadata.customer_id']).toBe('cus_9');
  });

  it('sanitises the file name and defaults it', async () => {
    expect((await renderAnalysesExport('csv', [], { name: '../x y' })).filename).toBe('x_y.csv');
    expect((await renderAnalysesExport('json', [])).filename).toBe('analyses.json');
  });

  it('json is a list object', async () => {
    const analyses = [dniAnalysis(), failedAnalysis()];
    const r = await renderAnalysesExport('json', analyses, { name: 'bat_1' });
    expect(JSON.parse(utf8(r.bytes))).toEqual({ object: 'list', data: analyses });
  });
});

describe('xlsx', () => {
  it('is a workbook with Analysis, Fields, Checks and Reasons sheets', async () => {
    const r = await renderAnalysisExport('xlsx', dniAnalysis(), { generatedAt: GENERATED_AT });
    const wb = await readWorkbook(r.bytes);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Analysis', 'Fields', 'Checks', 'Reasons']);

    const summary = wb.getWorksheet('Analysis')!;
    const kv = new Map(sheetRows(summary).map((row) => [row[0], row[1]]));
    expect(kv.get('key')).toBe('value');
    expect(kv.get('id')).toBe('an_01JPB4X9R2C8H5M7P3Q6S9T1VZ');
    expect(kv.get('created_at')).toEqual(new Date('2025-03-14T10:21:07Z'));
    expect(kv.get('document_label')).toBe('DNI español');
    expect(kv.get('document_confidence')).toBe(0.98);
    expect(kv.get('verdict_status')).toBe('review');
    expect(kv.get('expected_types')).toBe('es_dni|es_nie');
    expect(kv.get('metadata.note')).toBe('+SUM(A1:A9)'); // a text cell, not a formula
    expect(summary.getRow(1).font?.bold).toBe(true);
    expect(summary.getColumn(1).width).toBeGreaterThan(10);
    const createdCell = summary.getCell(`B${[...kv.keys()].indexOf('created_at') + 1}`);
    expect(createdCell.numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    expect(createdCell.type).toBe(ExcelJS.ValueType.Date);

    const fields = wb.getWorksheet('Fields')!;
    const frows = sheetRows(fields);
    expect(frows[0]).toEqual(['field', 'value', 'confidence', 'validated', 'page', 'bbox']);
    expect(fields.getRow(1).font?.bold).toBe(true);
    const byName = new Map(frows.slice(1).map((row) => [row[0], row]));
    expect(byName.get('first_name')).toEqual(['first_name', 'MARÍA JOSÉ', 0.99, undefined, 1, '0.412, 0.221, 0.603, 0.262']);
    expect(byName.get('document_number')?.slice(0, 4)).toEqual(['document_number', '12345678Z', 0.99, true]);
    expect(byName.get('birth_date')?.[1]).toEqual(new Date(Date.UTC(1985, 6, 21)));
    expect(byName.get('expiry_date')?.[1]).toEqual(new Date(Date.UTC(2031, 4, 3)));
    const bdayRow = frows.findIndex((row) => row[0] === 'birth_date') + 1;
    expect(fields.getCell(bdayRow, 2).numFmt).toBe('yyyy-mm-dd');
    expect(byName.get('reference')?.[1]).toBe('=HYPERLINK("http://evil.example","click")');
    expect(fields.getCell(frows.findIndex((row) => row[0] === 'reference') + 1, 2).type).toBe(ExcelJS.ValueType.String);
    for (let c = 1; c <= 6; c++) expect(fields.getColumn(c).width).toBeGreaterThan(0);

    const checks = sheetRows(wb.getWorksheet('Checks')!);
    expect(checks).toEqual([
      ['code', 'passed', 'message'],
      ['nif_check_digit', true, 'La letra del DNI es correcta.'],
      ['mrz_checksums', false, 'Los dígitos de control de la zona MRZ no cuadran.'],
    ]);
    const reasons = sheetRows(wb.getWorksheet('Reasons')!);
    expect(reasons[0]).toEqual(['code', 'severity', 'message']);
    expect(reasons[3]).toEqual(['low_confidence', 'warning', 'La confianza de la lectura del domicilio es baja.']);
    expect(wb.creator).toBe('Cotejo');
  });

  it('renders a failed analysis (empty Fields/Checks/Reasons, error in the summary)', async () => {
    const r = await renderAnalysisExport('xlsx', failedAnalysis());
    const wb = await readWorkbook(r.bytes);
    const kv = new Map(sheetRows(wb.getWorksheet('Analysis')!).map((row) => [row[0], row[1]]));
    expect(kv.get('status')).toBe('failed');
    expect(kv.get('error_code')).toBe('processing_failed');
    expect(kv.get('document_type')).toBeUndefined();
    expect(sheetRows(wb.getWorksheet('Fields')!)).toHaveLength(1);
    expect(sheetRows(wb.getWorksheet('Reasons')!)).toHaveLength(1);
  });

  it('several analyses: one "Analyses" sheet like the CSV', async () => {
    const analyses = [dniAnalysis(), failedAnalysis(), invoiceAnalysis()];
    const r = await renderAnalysesExport('xlsx', analyses, { name: 'bat_1' });
    expect(r.filename).toBe('bat_1.xlsx');
    expect(r.contentType).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const wb = await readWorkbook(r.bytes);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Analyses']);
    const ws = wb.getWorksheet('Analyses')!;
    const rows = sheetRows(ws);
    expect(rows).toHaveLength(4);
    const header = rows[0] as string[];
    const csv = await renderAnalysesExport('csv', analyses);
    expect(header).toEqual((parseCsv(csv.bytes, { bom: true }) as string[][])[0]);
    expect(ws.getRow(1).font?.bold).toBe(true);
    const col = (name: string) => header.indexOf(name);
    expect(rows.map((row) => row[0])).toEqual(['id', ...analyses.map((a) => a.id)]);
    expect(rows[1][col('created_at')]).toEqual(new Date('2025-03-14T10:21:07Z'));
    expect(rows[3][col('completed_at')]).toEqual(new Date('2025-03-15T09:00:00Z'));
    expect(rows[1][col('fields.birth_date')]).toEqual(new Date(Date.UTC(1985, 6, 21)));
    expect(ws.getCell(2, col('fields.birth_date') + 1).numFmt).toBe('yyyy-mm-dd');
    expect(ws.getCell(2, col('created_at') + 1).numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    expect(rows[3][col('fields.total_amount')]).toBe(1210.5);
    expect(rows[1][col('document_confidence')]).toBe(0.98);
    expect(rows[2][col('status')]).toBe('failed');
    expect(rows[2][col('document_type')]).toBeUndefined();
  });
});

describe('xml', () => {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, parseAttributeValue: false, isArray: (name) => ['field', 'check', 'reason', 'warning', 'entry', 'type', 'item'].includes(name) });

  it('is well-formed, namespaced UTF-8 with the analysis content', async () => {
    const r = await renderAnalysisExport('xml', dniAnalysis());
    const xml = utf8(r.bytes);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(XMLValidator.validate(xml)).toBe(true);
    const root = parser.parse(xml).analysis;
    expect(root['@xmlns']).toBe(XML_NAMESPACE);
    expect(root['@id']).toBe('an_01JPB4X9R2C8H5M7P3Q6S9T1VZ');
    expect(root['@status']).toBe('completed');
    expect(root.document['#text']).toBe('DNI español');
    expect(root.document['@type']).toBe('es_dni');
    expect(root.document['@confidence']).toBe('0.98');
    expect(root.verdict['@status']).toBe('review');
    expect(root.verdict.expected.type).toEqual(['es_dni', 'es_nie']);
    expect(root.verdict.reasons.reason.map((x: Record<string, string>) => x['@code'])).toEqual(['type_match', 'not_expired', 'low_confidence']);
    const fields = new Map<string, Record<string, string>>(root.fields.field.map((f: Record<string, string>) => [f['@name'], f]));
    expect(fields.get('first_name')?.['#text']).toBe('MARÍA JOSÉ');
    expect(fields.get('birth_date')?.['@type']).toBe('date');
    expect(fields.get('expiry_date')?.['#text']).toBe('2031-05-03');
    expect(fields.get('document_number')?.['@validated']).toBe('true');
    expect(fields.get('remarks')?.['#text']).toBe(`Tom & "Jerry" <b>'s</b>`);
    expect(xml).toContain('Tom &amp; "Jerry" &lt;b&gt;\'s&lt;/b&gt;');
    expect(root.checks.check[1]['@passed']).toBe('false');
    expect(root.warnings.warning).toEqual(['glare']);
    expect(root.metadata.entry.map((e: Record<string, string>) => [e['@key'], e['#text']])).toEqual([
      ['customer_id', 'cus_4821'],
      ['note', '+SUM(A1:A9)'],
    ]);
  });

  it('escapes attributes and drops characters XML cannot hold', async () => {
    const a = dniAnalysis();
    a.metadata = { [`k<&>"'`]: `v<&>"'`, ctl: 'a\u0001b' };
    a.fields = { ...a.fields, [`n"<&>`]: { value: { nested: [1, 'two'] }, confidence: 1, validated: null, source: null } };
    const xml = utf8((await renderAnalysisExport('xml', a)).bytes);
    expect(XMLValidator.validate(xml)).toBe(true);
    const root = parser.parse(xml).analysis;
    const entries = root.metadata.entry;
    expect(entries[0]['@key']).toBe(`k<&>"'`);
    expect(xml).toContain('key="k&lt;&amp;&gt;&quot;\'"');
    expect(entries[0]['#text']).toBe(`v<&>"'`);
    expect(entries[1]['#text']).toBe('a\uFFFDb');
    const odd = root.fields.field.find((f: Record<string, string>) => f['@name'] === `n"<&>`);
    expect(odd['@type']).toBe('object');
    expect(odd.entry[0]['@key']).toBe('nested');
    expect(odd.entry[0].item.map((i: Record<string, string>) => i['#text'])).toEqual(['1', 'two']);
  });

  it('renders a failed analysis and a signed invoice', async () => {
    const failed = parser.parse(utf8((await renderAnalysisExport('xml', failedAnalysis())).bytes)).analysis;
    expect(failed['@status']).toBe('failed');
    expect(failed.document).toBeUndefined();
    expect(failed.verdict).toBeUndefined();
    expect(failed.error['@code']).toBe('processing_failed');
    const inv = parser.parse(utf8((await renderAnalysisExport('xml', invoiceAnalysis())).bytes)).analysis;
    expect(inv.batch_id).toBe('bat_01JPB52H7K9M3N5P8Q2R4S6T0V');
    expect(inv.signature['@status']).toBe('valid');
    expect(inv.signature.signer).toBe('FAÇADE CONSEIL SL');
    expect(inv.signature.reasons.reason).toEqual(['signature_valid']);
    const items = inv.fields.field.find((f: Record<string, string>) => f['@name'] === 'line_items');
    expect(items['@type']).toBe('array');
    expect(items.item.map((i: Record<string, string>) => i['#text'])).toEqual(['Consultoría', 'Formación']);
  });
});

describe('vcard', () => {
  it('is a vCard 4.0 of the holder with folding and escaping', async () => {
    const r = await renderAnalysisExport('vcard', dniAnalysis());
    const text = utf8(r.bytes);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    for (const physical of text.split('\r\n')) expect(Buffer.byteLength(physical, 'utf8')).toBeLessThanOrEqual(75);
    expect(text).toMatch(/\r\n /); // the address line is folded

    const lines = unfoldVcard(text);
    expect(lines[0]).toBe('BEGIN:VCARD');
    expect(lines[1]).toBe('VERSION:4.0');
    expect(lines.at(-1)).toBe('END:VCARD');
    const prop = (name: string) => lines.find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1);
    expect(prop('FN')).toBe('MARÍA JOSÉ GARCÍA LÓPEZ');
    expect(prop('N')).toBe('GARCÍA LÓPEZ;MARÍA JOSÉ;;;');
    expect(prop('BDAY')).toBe('19850721');
    expect(prop('GENDER')).toBe('F');
    expect(prop('ADR')).toBe(
      ';;CALLE DE LA PRINCESA\\, 25\\; PISO 3º IZQUIERDA\\, ESCALERA B\\, URBANIZACIÓN LOS ÁLAMOS\\\\NORTE;MADRID;;28008;',
    );
    expect(prop('NOTE')).toBe('DNI español (es_dni)\\, número 12345678Z');
    expect(prop('X-COTEJO-ANALYSIS')).toBe('an_01JPB4X9R2C8H5M7P3Q6S9T1VZ');
  });

  it('never splits a UTF-8 sequence when folding', async () => {
    const a = dniAnalysis();
    a.fields = { full_name: { value: 'É'.repeat(100), confidence: 1, validated: null, source: null } };
    const text = utf8((await renderAnalysisExport('vcard', a)).bytes);
    const physical = text.split('\r\n');
    for (const l of physical) expect(Buffer.byteLength(l, 'utf8')).toBeLessThanOrEqual(75);
    expect(text).not.toContain('\uFFFD');
    expect(unfoldVcard(text).find((l) => l.startsWith('FN:'))).toBe(`FN:${'É'.repeat(100)}`);
    expect(unfoldVcard(text).some((l) => l.startsWith('N:'))).toBe(false);
  });

  it('maps sex and reads Spanish field names as a fallback', async () => {
    const a = dniAnalysis();
    a.fields = {
      nombre: { value: 'ANA', confidence: 1, validated: null, source: null },
      apellidos: { value: 'PÉREZ; RUIZ', confidence: 1, validated: null, source: null },
      sexo: { value: 'X', confidence: 1, validated: null, source: null },
      fecha_nacimiento: { value: '2000-02-29', confidence: 1, validated: null, source: null },
    };
    const lines = unfoldVcard(utf8((await renderAnalysisExport('vcard', a, { language: 'en' })).bytes));
    expect(lines).toContain('FN:ANA PÉREZ\\; RUIZ');
    expect(lines).toContain('N:PÉREZ\\; RUIZ;ANA;;;');
    expect(lines).toContain('GENDER:O');
    expect(lines).toContain('BDAY:20000229');
    expect(lines).toContain('NOTE:DNI español (es_dni)');
  });

  it('without name fields: FN is the document label', async () => {
    const inv = unfoldVcard(utf8((await renderAnalysisExport('vcard', invoiceAnalysis())).bytes));
    expect(inv).toContain('FN:Factura');
    expect(inv).toContain('NOTE:Factura (invoice)');
    expect(inv.some((l) => l.startsWith('N:') || l.startsWith('KIND:'))).toBe(false);
    const failed = unfoldVcard(utf8((await renderAnalysisExport('vcard', failedAnalysis())).bytes));
    expect(failed[0]).toBe('BEGIN:VCARD');
    expect(failed).toContain('FN:Cotejo an_01JPB4X9R2C8H5M7P3Q6S9T1W0');
    expect(failed).toContain('X-COTEJO-ANALYSIS:an_01JPB4X9R2C8H5M7P3Q6S9T1W0');
  });
});

describe('pdf', () => {
  it('is a one-page report with the analysis content', async () => {
    const r = await renderAnalysisExport('pdf', dniAnalysis(), { generatedAt: GENERATED_AT });
    expect(utf8(r.bytes.slice(0, 5))).toBe('%PDF-');
    const { pages, text, info } = await pdfText(r.bytes);
    expect(pages).toBe(1);
    expect(text).toContain('Cotejo — informe de análisis');
    expect(text).toContain('an_01JPB4X9R2C8H5M7P3Q6S9T1VZ');
    expect(text).toContain('DNI español (es_dni)');
    expect(text).toContain('REVISIÓN');
    expect(text).toContain('MARÍA JOSÉ');
    expect(text).toContain('GARCÍA');
    expect(text).toContain('1985-07-21');
    // Fields by their Spanish label, not the API's snake_case name (#29).
    expect(text).toContain('Número de documento');
    expect(text).toContain('Fecha de nacimiento');
    expect(text).not.toContain('document_number');
    expect(text).not.toContain('birth_date');
    expect(text).toContain('low_confidence');
    expect(text).toContain('mrz_checksums');
    expect(text).toContain('glare');
    expect(text).toContain('2025-03-14 10:21:07 UTC');
    expect(text).toContain('Generado el 2025-03-14 12:00:00 UTC');
    // One page is one page, not "1 páginas" (#29).
    expect(text).toContain('1 página,');
    expect(text).not.toContain('1 páginas');
    expect(info.Title).toBe('Cotejo — informe de análisis: an_01JPB4X9R2C8H5M7P3Q6S9T1VZ');
    expect(String(info.CreationDate)).toContain('20250314120000');
  });

  it('is deterministic given generatedAt', async () => {
    const a = await renderAnalysisExport('pdf', dniAnalysis(), { generatedAt: GENERATED_AT });
    const b = await renderAnalysisExport('pdf', dniAnalysis(), { generatedAt: GENERATED_AT });
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
    const c = await renderAnalysisExport('pdf', dniAnalysis(), { generatedAt: new Date('2026-01-01T00:00:00Z') });
    expect(Buffer.from(a.bytes).equals(Buffer.from(c.bytes))).toBe(false);
  });

  it('is localised', async () => {
    const titles = { en: 'Cotejo — analysis report', pt: 'Cotejo — relatório de análise', fr: "Cotejo — rapport d'analyse" };
    const invoiceLabels = { en: 'Invoice number', pt: 'Número da fatura', fr: 'Numéro de facture' };
    for (const [language, title] of Object.entries(titles)) {
      const r = await renderAnalysisExport('pdf', invoiceAnalysis(), { language: language as 'en', generatedAt: GENERATED_AT });
      const { text } = await pdfText(r.bytes);
      expect(text).toContain(title);
      expect(text).toContain(invoiceLabels[language as 'en']);
      expect(text).not.toContain('invoice_number');
      // A field the dictionary does not know keeps its name.
      expect(text).toContain('discount');
    }
    const fr = await pdfText((await renderAnalysisExport('pdf', invoiceAnalysis(), { language: 'fr', generatedAt: GENERATED_AT })).bytes);
    expect(fr.text).toContain('Signature PDF');
    expect(fr.text).toContain('FAÇADE CONSEIL SL');
    expect(fr.text).toContain('Façade Conseil, S.L.');
  });

  it('stays on one page with many long fields, and renders a failed analysis', async () => {
    const a = dniAnalysis();
    const fields: Analysis['fields'] = {};
    for (let i = 0; i < 120; i++) {
      fields[`field_${String(i).padStart(3, '0')}`] = { value: `valor ${i} `.repeat(40), confidence: 0.5, validated: false, source: null };
    }
    a.fields = fields;
    a.checks = Array.from({ length: 30 }, (_, i) => ({ code: `check_${i}`, passed: i % 2 === 0, message: 'x'.repeat(300) }));
    a.verdict!.reasons = Array.from({ length: 30 }, (_, i) => ({ code: `reason_${i}`, severity: 'error' as const, message: 'y'.repeat(300) }));
    a.metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'.repeat(50)]));
    a.signature = { status: 'modified', reasons: ['document_modified_after_signing'], signer: 'S'.repeat(300), issuer: 'I', signed_at: null, trust_anchor: null, trusted: false, signatures: 2 };
    const r = await renderAnalysisExport('pdf', a, { generatedAt: GENERATED_AT });
    const { pages, text } = await pdfText(r.bytes);
    expect(pages).toBe(1);
    expect(text).toContain('field_000');
    expect(text).toMatch(/… y \d+ más/);
    expect(text).toContain('Generado el');
    expect(text).toContain('…');

    const failed = await pdfText((await renderAnalysisExport('pdf', failedAnalysis(), { language: 'en', generatedAt: GENERATED_AT })).bytes);
    expect(failed.pages).toBe(1);
    expect(failed.text).toContain('processing_failed');
    expect(failed.text).toContain('No verdict');
    expect(failed.text).toContain('No fields were extracted.');
  });

  it('shows a reason that names its evidence whole, on up to three lines (#27)', async () => {
    const a = dniAnalysis();
    const message = 'An MRZ check digit is wrong: document number "L898902C9": printed 6, computed 2; composite check digit "L898902C9674081221204159ZE184226B<<<<<1": printed 0, computed 6.';
    a.verdict = { ...a.verdict!, status: 'invalid', reasons: [a.verdict!.reasons[0], { code: 'mrz_checksums', severity: 'error', message }] };
    const { pages, text } = await pdfText((await renderAnalysisExport('pdf', a, { language: 'en', generatedAt: GENERATED_AT })).bytes);
    expect(pages).toBe(1);
    // Every word of the message is on the page (wrapped, not cut with an ellipsis).
    const flat = text.replace(/\s+/g, ' ');
    for (const word of ['"L898902C9":', 'printed 6, computed 2;', 'ZE184226B<<<<<1":', 'printed 0, computed 6.']) expect(flat).toContain(word);
  });

  it('replaces characters the standard font cannot encode', async () => {
    const a = dniAnalysis();
    a.fields = {
      full_name: { value: 'Łukasz Őrs Čapek Иван 😀', confidence: 1, validated: null, source: null },
    };
    const { text } = await pdfText((await renderAnalysisExport('pdf', a, { generatedAt: GENERATED_AT })).bytes);
    expect(text).toContain('?ukasz Ors Capek ???? ?');
  });
});
