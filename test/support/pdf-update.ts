/**
 * Appends an incremental update to a PDF that redefines `objects` (number -> the body between `obj` and `endobj`):
 * what an editor does to a signed PDF, leaving the signed revision's bytes as they were.
 */
export function appendUpdate(pdf: Uint8Array, objects: Record<number, string>): Uint8Array {
  const text = Buffer.from(pdf).toString('latin1');
  const prev = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)![1]);
  let out = text.endsWith('\n') ? text : text + '\n';
  const offsets: Array<[number, number]> = [];
  for (const [num, body] of Object.entries(objects)) {
    offsets.push([Number(num), out.length]);
    out += `${num} 0 obj\n${body}\nendobj\n`;
  }
  const xref = out.length;
  out += 'xref\n0 1\n0000000000 65535 f \n';
  for (const [num, off] of offsets) out += `${num} 1\n${String(off).padStart(10, '0')} 00000 n \n`;
  const size = Math.max(9, ...offsets.map(([n]) => n + 1));
  out += `trailer\n<< /Root 1 0 R /Size ${size} /Prev ${prev} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}
