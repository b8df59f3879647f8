/** AAMVA DL/ID card PDF417 payloads (version 10, one subfile) built from the visual fields. */

/** Issuer identification numbers (IIN) of the states the simulator uses. */
export const STATE_IIN: Record<string, string> = {
  CA: '636014', NY: '636001', TX: '636015', FL: '636010', IL: '636035', WA: '636045', PA: '636025', OH: '636023', GA: '636055', NJ: '636036',
};

/** `YYYY-MM-DD` -> `MMDDCCYY` (US order from version 2). */
export function aamvaUsDate(iso: string): string {
  return iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(0, 4);
}

/** A compliant payload: header, one designator, the subfile with LF-separated elements and a CR terminator. */
export function buildAamva(state: string, subfile: 'DL' | 'ID', elements: Array<[string, string]>): string {
  const iin = STATE_IIN[state] ?? '636000';
  const header = '@\n\x1e\rANSI ' + iin + '10' + '00' + '01';
  const data = subfile + elements.map(([k, v]) => k + v).join('\n') + '\r';
  const offset = header.length + 10;
  return header + subfile + String(offset).padStart(4, '0') + String(data.length).padStart(4, '0') + data;
}
