/**
 * Latin American tax ids on invoices (issue #28): Brazil's CNPJ and CPF, Argentina's CUIT, Chile's RUT, Colombia's
 * NIT, Peru's RUC (their check digits) and Mexico's RFC (after its label, unchecked). Known numbers published by the
 * tax agencies themselves where there is one (AFIP 33-69345023-9, DIAN 800.197.268-4, SUNAT 20131312955), textbook
 * examples otherwise; each with one digit changed must not be taken.
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import { findTaxIds } from '../../../server/src/providers/local/text/ids.ts';
import { checkArCuit, checkClRut, checkCoNit, checkPeRuc } from '../../../server/src/validators/latam-ids.ts';
import { page } from './support-text.ts';

/** The same number with its `i`-th digit (counting digits only) moved by one. */
const changed = (v: string, i: number) => {
  let n = -1;
  return v.replace(/\d/g, (d) => (++n === i ? String((Number(d) + 1) % 10) : d));
};

describe('check digits', () => {
  it.each([
    [checkArCuit, ['20-12345678-6', '33-69345023-9', '30-71234567-1']],
    [checkClRut, ['12.345.678-5', '11.111.111-1', '1.000.005-K']],
    [checkCoNit, ['800.197.268-4']],
    [checkPeRuc, ['20131312955', '20100070970']],
  ] as const)('%o passes the published numbers and fails each with a digit changed', (check, numbers) => {
    for (const v of numbers) {
      expect(check(v).valid, v).toBe(true);
      const digits = v.replace(/\D/g, '').length;
      // The digit before the check one (a changed type prefix is a format failure, which fails too).
      expect(check(changed(v, digits - 2)).valid, changed(v, digits - 2)).toBe(false);
    }
  });
  it('a CUIT whose remainder would need a check digit of 10 never passes; a RUT is 7 or 8 digits and its check', () => {
    // 20-00000001-?: 5*2 + 2*1 = 12, 12 mod 11 = 1, 11 - 1 = 10: AFIP issues no such number.
    expect(Array.from({ length: 10 }, (_, d) => checkArCuit(`2000000001${d}`).valid)).not.toContain(true);
    expect(checkClRut('123-4').valid).toBe(false);
  });
});

describe('findTaxIds on a line', () => {
  it.each([
    ['CNPJ: 11.222.333/0001-81', 'br_cnpj', '11222333000181', 'BRA'],
    ['CNPJ 11222333000181', 'br_cnpj', '11222333000181', 'BRA'],
    ['Tomador: 11.222.333/0001-81', 'br_cnpj', '11222333000181', 'BRA'],
    ['CPF: 529.982.247-25', 'br_cpf', '52998224725', 'BRA'],
    ['C.N.P.J.: 11222333000181', 'br_cnpj', '11222333000181', 'BRA'],
    ['Cpf 52998224725', 'br_cpf', '52998224725', 'BRA'],
    ['C.U.I.T. 30-71234567-1', 'ar_cuit', '30712345671', 'ARG'],
    ['CUIT: 30712345671', 'ar_cuit', '30712345671', 'ARG'],
    ['RUT: 12.345.678-5', 'cl_rut', '123456785', 'CHL'],
    ['R.U.T. 1.000.005-K', 'cl_rut', '1000005K', 'CHL'],
    ['NIT 800.197.268-4', 'co_nit', '8001972684', 'COL'],
    ['RUC: 20131312955', 'pe_ruc', '20131312955', 'PER'],
  ])('%s', (line, kind, value, country) => {
    const ids = findTaxIds(line);
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatchObject({ kind, value, country });
    expect(ids[0].checked).toBeUndefined();
    expect(line.slice(ids[0].start, ids[0].end).replace(/[\s.\-/]/g, '')).toBe(value);
  });
  it('a NIT without its check digit and an RFC are taken after their label, unchecked; other numbers are not taken', () => {
    expect(findTaxIds('NIT: 900.123.456')).toEqual([expect.objectContaining({ kind: 'co_nit', value: '900123456', checked: false })]);
    expect(findTaxIds('RFC: GODE561231GR8')).toEqual([expect.objectContaining({ kind: 'mx_rfc', value: 'GODE561231GR8', country: 'MEX', checked: false })]);
    for (const line of ['CNPJ: 11.222.333/0001-82', 'CPF 529.982.247-26', 'CUIT 30-71234567-2', 'RUT 12.345.678-6', 'NIT 800.197.268-5', 'RUC 20131312956', 'Tel. 123.456.789-10', 'Unit 800.197.268', 'Pedido 20-12345678-9']) {
      expect(findTaxIds(line), line).toEqual([]);
    }
  });
});

describe('the issuer tax id of a Latin American invoice', () => {
  const invoice = getEntry('invoice')!;
  it('an Argentine factura: the CUIT under the letterhead is the issuer, the customer CUIT in its block is not', () => {
    const lines = page([
      [[0.05, 'ACME S.A.'], [0.7, 'FACTURA A']],
      [[0.05, 'Av. Corrientes 1234, CABA'], [0.7, 'Nro: 0001-00001234']],
      [[0.05, 'C.U.I.T.: 30-71234567-1'], [0.7, 'Fecha: 15/03/2026']],
      [[0.05, 'Cliente: Juan Pérez']],
      [[0.05, 'CUIT: 20-12345678-6']],
      [[0.05, 'Servicio de mantenimiento'], [0.85, '1.000,00']],
      [[0.6, 'IVA 21%'], [0.85, '210,00']],
      [[0.6, 'Total $'], [0.85, '1.210,00']],
    ]);
    const f = extractFields(invoice, lines, []);
    expect(f.issuer_tax_id?.value).toBe('30712345671');
    expect(f.customer_tax_id?.value).toBe('20123456786');
    expect(f.issuer_tax_id!.confidence).toBeGreaterThanOrEqual(0.7);
  });
});

describe('the number of a Latin American invoice', () => {
  const invoice = getEntry('invoice')!;
  const number = (rows: Parameters<typeof page>[0]) => extractFields(invoice, page(rows), [])['invoice_number']?.value ?? null;
  it('an Argentine factura: `Comp. Nro` after the point of sale', () => {
    expect(number([
      [[0.05, 'ACME S.A.'], [0.7, 'FACTURA']],
      [[0.05, 'C.U.I.T.: 30-71234567-1'], [0.55, 'Punto de Venta: 00001'], [0.8, 'Comp. Nro: 00000123']],
      [[0.55, 'Fecha de Emisión: 15/03/2026']],
      [[0.6, 'Importe Total: $'], [0.85, '1.210,00']],
    ])).toBe('00000123');
  });
  it('a Peruvian or Chilean electronic invoice: `FACTURA ELECTRÓNICA` over its series and number', () => {
    expect(number([
      [[0.05, 'COMERCIAL ANDINA S.A.C.'], [0.65, 'R.U.C. 20131312955']],
      [[0.05, 'Av. Arequipa 123, Lima'], [0.65, 'FACTURA ELECTRÓNICA']],
      [[0.65, 'F001-00000456']],
      [[0.05, 'Fecha de emisión: 15/03/2026']],
      [[0.6, 'Importe total'], [0.85, 'S/ 118,00']],
    ])).toBe('F001-00000456');
  });
});
