/**
 * Tax identifiers of Latin American countries, with their check digits (Brazil's CPF and CNPJ are in
 * id-numbers.ts): Argentina's CUIT/CUIL, Chile's RUT/RUN, Colombia's NIT and Peru's RUC. Pure functions returning an
 * IdCheck, as the other national checks; sources in docs/validators.md.
 */
import { checksumResult, compact, formatFail, type IdCheck } from './id-numbers.ts';

/** 11 - (the first ten digits weighted 5 4 3 2 7 6 5 4 3 2, mod 11): the check of both AFIP's CUIT and SUNAT's RUC. */
function elevenMinusMod11(v: string): number {
  const w = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += Number(v[i]) * w[i];
  return 11 - (sum % 11);
}

/**
 * Argentina, CUIT / CUIL (AFIP): 11 digits `20-12345678-6`, a type (20, 23, 24, 27 people; 30, 33, 34 companies),
 * the document number and a mod-11 check digit over weights 5 4 3 2 7 6 5 4 3 2. A remainder that would give 10 has
 * no check digit (AFIP issues such numbers under another type), so it never passes.
 */
export function checkArCuit(value: string): IdCheck {
  const v = compact(value);
  if (!/^(20|23|24|27|30|33|34)\d{9}$/.test(v)) return formatFail(v);
  const r = elevenMinusMod11(v);
  const expected = r === 11 ? '0' : r === 10 ? '-' : String(r);
  return checksumResult(v, expected, v[10]);
}

/**
 * Chile, RUT / RUN (SII): 7 or 8 digits and a check character `12.345.678-5`: weights 2 to 7 repeating from the
 * right, 11 - (sum mod 11), where 11 is 0 and 10 is K.
 */
export function checkClRut(value: string): IdCheck {
  const v = compact(value);
  if (!/^\d{7,8}[0-9K]$/.test(v)) return formatFail(v);
  const body = v.slice(0, -1);
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * (2 + (i % 6));
  const r = 11 - (sum % 11);
  const expected = r === 11 ? '0' : r === 10 ? 'K' : String(r);
  return checksumResult(v, expected, v.slice(-1));
}

/**
 * Colombia, NIT (DIAN): 9 or 10 digits then a check digit `800.197.268-4`: weights 3 7 13 17 19 23 29 37 41 43 from
 * the right, remainder r of the sum mod 11, check r when r < 2, else 11 - r.
 */
export function checkCoNit(value: string): IdCheck {
  const v = compact(value);
  if (!/^\d{9,11}$/.test(v)) return formatFail(v);
  const body = v.slice(0, -1);
  const w = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43];
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * w[i];
  const r = sum % 11;
  return checksumResult(v, String(r < 2 ? r : 11 - r), v.slice(-1));
}

/**
 * Peru, RUC (SUNAT): 11 digits, a type (10 people, 15, 16, 17, 20 companies) and a mod-11 check digit over weights
 * 5 4 3 2 7 6 5 4 3 2, 11 - (sum mod 11), where 10 is 0 and 11 is 1.
 */
export function checkPeRuc(value: string): IdCheck {
  const v = compact(value);
  if (!/^(10|15|16|17|20)\d{9}$/.test(v)) return formatFail(v);
  return checksumResult(v, String(elevenMinusMod11(v) % 10), v[10]);
}
