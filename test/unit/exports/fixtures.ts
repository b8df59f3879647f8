import type { Analysis } from '../../../server/src/exports/index.ts';

const src = (page: number, bbox: number[]) => ({ page, bbox });

/** Spanish DNI, verdict `review`, with awkward values: accents, XML specials, formula triggers, long address. */
export function dniAnalysis(): Analysis {
  return {
    id: 'an_01JPB4X9R2C8H5M7P3Q6S9T1VZ',
    object: 'analysis',
    status: 'completed',
    livemode: false,
    created_at: '2025-03-14T10:21:07Z',
    completed_at: '2025-03-14T10:21:11Z',
    file: { name: 'dni_valid.jpg', mime_type: 'image/jpeg', pages: 1, size_bytes: 284113 },
    document: { type: 'es_dni', label: 'DNI español', confidence: 0.98, side: 'both', country: 'ESP' },
    verdict: {
      expected: ['es_dni', 'es_nie'],
      match: true,
      status: 'review',
      reasons: [
        { code: 'type_match', severity: 'info', message: 'El documento es del tipo esperado (DNI español).' },
        { code: 'not_expired', severity: 'info', message: 'El documento no está caducado (caduca el 03/05/2031).' },
        { code: 'low_confidence', severity: 'warning', message: 'La confianza de la lectura del domicilio es baja.' },
      ],
      final_status: null,
    },
    fields: {
      first_name: { value: 'MARÍA JOSÉ', confidence: 0.99, validated: null, source: src(1, [0.412, 0.221, 0.603, 0.262]) },
      last_name: { value: 'GARCÍA', confidence: 0.98, validated: null, source: src(1, [0.412, 0.168, 0.701, 0.209]) },
      second_last_name: { value: 'LÓPEZ', confidence: 0.98, validated: null, source: null },
      full_name: { value: 'MARÍA JOSÉ GARCÍA LÓPEZ', confidence: 0.98, validated: null, source: null },
      document_number: { value: '12345678Z', confidence: 0.99, validated: true, source: src(1, [0.081, 0.842, 0.334, 0.889]) },
      sex: { value: 'F', confidence: 0.97, validated: true, source: src(1, [0.412, 0.301, 0.441, 0.339]) },
      nationality: { value: 'ESP', confidence: 0.98, validated: true, source: null },
      birth_date: { value: '1985-07-21', confidence: 0.98, validated: true, source: src(1, [0.691, 0.301, 0.862, 0.339]) },
      issue_date: { value: '2021-05-03', confidence: 0.95, validated: null, source: null },
      expiry_date: { value: '2031-05-03T00:00:00Z', confidence: 0.97, validated: true, source: null },
      address: {
        value: 'CALLE DE LA PRINCESA, 25; PISO 3º IZQUIERDA, ESCALERA B, URBANIZACIÓN LOS ÁLAMOS\\NORTE',
        confidence: 0.61,
        validated: null,
        source: src(2, [0.1, 0.5, 0.9, 0.6]),
      },
      city: { value: 'MADRID', confidence: 0.9, validated: null, source: null },
      postal_code: { value: '28008', confidence: 0.9, validated: null, source: null },
      remarks: { value: `Tom & "Jerry" <b>'s</b>`, confidence: 0.5, validated: null, source: null },
      reference: { value: '=HYPERLINK("http://evil.example","click")', confidence: 0.5, validated: null, source: null },
    },
    checks: [
      { code: 'nif_check_digit', passed: true, message: 'La letra del DNI es correcta.' },
      { code: 'mrz_checksums', passed: false, message: 'Los dígitos de control de la zona MRZ no cuadran.' },
    ],
    warnings: ['glare'],
    signature: null,
    exports: {},
    storage: { mode: 'none', file_deleted_at: '2025-03-14T10:21:11Z', expires_at: null },
    processing: { profile: 'sovereign', region: 'eu', mode: 'vlm', providers: [{ name: 'mock', region: 'local', role: 'llm' }] },
    usage: { credits: 0, pages: 1 },
    metadata: { customer_id: 'cus_4821', note: '+SUM(A1:A9)' },
    review: null,
  };
}

/** A failed analysis: no document, no verdict, no fields. */
export function failedAnalysis(): Analysis {
  return {
    id: 'an_01JPB4X9R2C8H5M7P3Q6S9T1W0',
    object: 'analysis',
    status: 'failed',
    livemode: true,
    created_at: '2025-03-14T11:00:00Z',
    completed_at: '2025-03-14T11:00:03Z',
    file: { name: 'blurry.jpg', mime_type: 'image/jpeg', pages: 1, size_bytes: 1024 },
    document: null,
    verdict: null,
    fields: {},
    checks: [],
    warnings: [],
    signature: null,
    exports: {},
    storage: { mode: 'none', file_deleted_at: null, expires_at: null },
    processing: null,
    usage: { credits: 0, pages: 0 },
    metadata: {},
    error: { code: 'processing_failed', message: 'No se pudo procesar el documento.' },
    review: null,
  };
}

/** A signed PDF invoice, no verdict, numeric and array field values. */
export function invoiceAnalysis(): Analysis {
  return {
    id: 'an_01JPB4X9R2C8H5M7P3Q6S9T1W1',
    object: 'analysis',
    status: 'completed',
    livemode: false,
    batch_id: 'bat_01JPB52H7K9M3N5P8Q2R4S6T0V',
    created_at: '2025-03-15T09:00:00Z',
    completed_at: '2025-03-15T09:00:00Z',
    file: { name: 'factura_0042.pdf', mime_type: 'application/pdf', pages: 2, size_bytes: 98765 },
    document: { type: 'invoice', label: 'Factura', confidence: 0.93, side: null, country: 'ESP' },
    verdict: null,
    fields: {
      invoice_number: { value: 'F-2025/0042', confidence: 0.97, validated: null, source: null },
      issue_date: { value: '2025-03-01', confidence: 0.95, validated: null, source: null },
      issuer_name: { value: 'Façade Conseil, S.L.', confidence: 0.9, validated: null, source: null },
      total_amount: { value: 1210.5, confidence: 0.96, validated: true, source: null },
      discount: { value: -5, confidence: 0.8, validated: null, source: null },
      iban: { value: 'ES9121000418450200051332', confidence: 0.99, validated: true, source: null },
      line_items: { value: ['Consultoría', 'Formación'], confidence: 0.8, validated: null, source: null },
    },
    checks: [
      { code: 'iban_checksum', passed: true, message: 'El IBAN es correcto.' },
      { code: 'invoice_totals', passed: true, message: 'Los totales cuadran.' },
    ],
    warnings: [],
    signature: {
      status: 'valid',
      reasons: ['signature_valid'],
      signer: 'FAÇADE CONSEIL SL',
      issuer: 'AC FNMT Usuarios',
      signed_at: '2025-03-01T12:00:00Z',
      trust_anchor: 'FNMT-RCM',
      trusted: true,
      signatures: 1,
    },
    exports: {},
    storage: { mode: 'temporary', file_deleted_at: null, expires_at: '2025-03-22T09:00:00Z' },
    processing: { profile: 'standard', region: 'eu', mode: 'ocr+llm', providers: [{ name: 'mock', region: 'local', role: 'ocr' }] },
    usage: { credits: 2, pages: 2 },
    metadata: { order_id: 'PO-77', customer_id: 'cus_9' },
    review: null,
  };
}

export const GENERATED_AT = new Date('2025-03-14T12:00:00Z');
