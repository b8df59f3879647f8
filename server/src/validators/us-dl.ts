/**
 * us_dl: US driver licence number formats per issuing state (format only; no state publishes a
 * check digit algorithm). Table after the widely used per-state format list (AAMVA member
 * jurisdictions; see docs/validators.md). Input is normalised: upper case, spaces and dashes removed.
 */
import { formatFail, type IdCheck } from './id-numbers.ts';

export const US_DL_FORMATS: Record<string, RegExp[]> = {
  AL: [/^\d{1,8}$/],
  AK: [/^\d{1,7}$/],
  AZ: [/^[A-Z]\d{1,8}$/, /^[A-Z]{2}\d{2,5}$/, /^\d{9}$/],
  AR: [/^\d{4,9}$/],
  CA: [/^[A-Z]\d{7}$/],
  CO: [/^\d{9}$/, /^[A-Z]\d{3,6}$/, /^[A-Z]{2}\d{2,5}$/],
  CT: [/^\d{9}$/],
  DE: [/^\d{1,7}$/],
  DC: [/^\d{7}$/, /^\d{9}$/],
  FL: [/^[A-Z]\d{12}$/],
  GA: [/^\d{7,9}$/],
  HI: [/^[A-Z]\d{8}$/, /^\d{9}$/],
  ID: [/^[A-Z]{2}\d{6}[A-Z]$/, /^\d{9}$/],
  IL: [/^[A-Z]\d{11,12}$/],
  IN: [/^[A-Z]\d{9}$/, /^\d{9,10}$/],
  IA: [/^\d{9}$/, /^\d{3}[A-Z]{2}\d{4}$/],
  KS: [/^[A-Z]\d[A-Z]\d[A-Z]$/, /^[A-Z]\d{8}$/, /^\d{9}$/],
  KY: [/^[A-Z]\d{8,9}$/, /^\d{9}$/],
  LA: [/^\d{1,9}$/],
  ME: [/^\d{7,8}$/, /^\d{7}[A-Z]$/],
  MD: [/^[A-Z]\d{12}$/, /^MD\d{11}$/],
  MA: [/^[A-Z]\d{8}$/, /^\d{9}$/],
  MI: [/^[A-Z]\d{10}$/, /^[A-Z]\d{12}$/],
  MN: [/^[A-Z]\d{12}$/],
  MS: [/^\d{9}$/],
  MO: [/^[A-Z]\d{5,9}$/, /^[A-Z]\d{6}R$/, /^\d{8}[A-Z]{2}$/, /^\d{9}[A-Z]$/, /^\d{9}$/],
  MT: [/^[A-Z]\d{8}$/, /^\d{13}$/, /^\d{9}$/, /^\d{14}$/],
  NE: [/^[A-Z]\d{6,8}$/],
  NV: [/^\d{9,10}$/, /^\d{12}$/, /^X\d{8}$/],
  NH: [/^\d{2}[A-Z]{3}\d{5}$/, /^NHL\d{8}$/],
  NJ: [/^[A-Z]\d{14}$/],
  NM: [/^\d{8,9}$/],
  NY: [/^[A-Z]\d{7}$/, /^[A-Z]\d{18}$/, /^\d{8,9}$/, /^\d{16}$/, /^[A-Z]{8}$/],
  NC: [/^\d{1,12}$/],
  ND: [/^[A-Z]{3}\d{6}$/, /^\d{9}$/],
  OH: [/^[A-Z]\d{4,8}$/, /^[A-Z]{2}\d{3,7}$/, /^\d{8}$/],
  OK: [/^[A-Z]\d{9}$/, /^\d{9}$/],
  OR: [/^\d{1,9}$/, /^[A-Z]\d{6}$/],
  PA: [/^\d{8}$/],
  PR: [/^\d{5,7}$/, /^\d{9}$/],
  RI: [/^\d{7}$/, /^[A-Z]\d{6}$/],
  SC: [/^\d{5,11}$/],
  SD: [/^\d{6,10}$/, /^\d{12}$/],
  TN: [/^\d{7,9}$/],
  TX: [/^\d{7,8}$/],
  UT: [/^\d{4,10}$/],
  VT: [/^\d{8}$/, /^\d{7}A$/],
  VA: [/^[A-Z]\d{8,11}$/, /^\d{9}$/],
  WA: [/^[A-Z*]{1,7}[A-Z0-9*]{5}$/, /^WDL[A-Z0-9]{9}$/],
  WV: [/^\d{7}$/, /^[A-Z]{1,2}\d{5,6}$/],
  WI: [/^[A-Z]\d{13}$/],
  WY: [/^\d{9,10}$/],
};

/** Check a US driver licence number against the format(s) of `state` (USPS code). */
export function checkUsDl(value: string, state?: string): IdCheck {
  const v = String(value ?? '').toUpperCase().replace(/[\s\-]/g, '');
  const st = state?.toUpperCase().trim();
  if (!st || !US_DL_FORMATS[st]) {
    // Unknown state: generic shape only.
    const ok = /^[A-Z0-9*]{4,20}$/.test(v);
    return ok
      ? { valid: true, format_ok: true, checksum_ok: null, normalized: v, reason: 'ok_generic', kind: st ?? undefined }
      : formatFail(v);
  }
  const idx = US_DL_FORMATS[st].findIndex((re) => re.test(v));
  if (idx < 0) return { ...formatFail(v, 'invalid_format_for_state'), kind: st, details: { state: st, formats: US_DL_FORMATS[st].map(String) } };
  return { valid: true, format_ok: true, checksum_ok: null, normalized: v, reason: 'ok', kind: st, details: { state: st, format: String(US_DL_FORMATS[st][idx]) } };
}
