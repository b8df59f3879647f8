// Heuristics for "edited_suspected": the PDF was produced or saved by a known PDF editor,
// or its modification date is much later than its creation date. Hints, not proof.

/**
 * Known editors, matched case-insensitively against Producer and Creator (Info dictionary)
 * and the XMP pdf:Producer / xmp:CreatorTool. Creation tools (Word, Distiller, PDFMaker,
 * Adobe PDF Library, scanners, printers) are deliberately not listed.
 */
export const KNOWN_EDITORS: Array<{ name: string; re: RegExp }> = [
  { name: 'iLovePDF', re: /ilovepdf/i },
  { name: 'Smallpdf', re: /smallpdf/i },
  { name: 'Sejda', re: /sejda/i },
  { name: 'PDFescape', re: /pdfescape/i },
  { name: 'Foxit PhantomPDF / PDF Editor', re: /foxit\s*(phantom\s*pdf|pdf\s*editor)/i },
  { name: 'Adobe Acrobat (Standard/Pro, not Distiller/PDFMaker/Reader)', re: /adobe\s+acrobat(?!\s*(reader|distiller))(?!.*(pdfmaker|distiller|paper capture))/i },
  { name: 'PDF-XChange Editor', re: /pdf-?xchange\s*(editor|pro)/i },
  { name: 'Nitro PDF', re: /nitro\s*(pro|pdf)/i },
  { name: 'Wondershare PDFelement', re: /pdfelement|wondershare/i },
  { name: 'LibreOffice / OpenOffice Draw', re: /^(libreoffice|openoffice\.org)?\s*draw\b/i },
  { name: 'PDFfiller', re: /pdffiller/i },
  { name: 'PDF Candy', re: /pdf\s*candy/i },
  { name: 'Soda PDF', re: /soda\s*pdf/i },
  { name: 'Master PDF Editor', re: /master\s*pdf\s*editor/i },
  { name: 'Icecream PDF Editor', re: /icecream\s*pdf/i },
  { name: 'ApowerPDF', re: /apowerpdf/i },
  { name: 'PDF Expert (Readdle)', re: /pdf\s*expert/i },
  { name: 'Able2Extract', re: /able2extract/i },
  { name: 'DocHub', re: /dochub/i },
  { name: 'Sumatra/PDF24 editor', re: /pdf24/i },
];

/** ModDate later than CreationDate by more than this is suspicious. */
export const MOD_DATE_THRESHOLD_MS = 24 * 60 * 60 * 1000;

export function detectEditor(meta: {
  producer: string | null;
  creator: string | null;
  creationDate: Date | null;
  modDate: Date | null;
  xmp: string | null;
}): string[] {
  const out: string[] = [];
  const tools: Array<[string, string]> = [];
  if (meta.producer) tools.push(['Producer', meta.producer]);
  if (meta.creator) tools.push(['Creator', meta.creator]);
  if (meta.xmp) {
    for (const m of meta.xmp.matchAll(/<(pdf:Producer|xmp:CreatorTool)>([^<]{1,300})</g)) tools.push([m[1], m[2]]);
    for (const m of meta.xmp.matchAll(/(pdf:Producer|xmp:CreatorTool)="([^"]{1,300})"/g)) tools.push([m[1], m[2]]);
  }
  const seen = new Set<string>();
  for (const [k, v] of tools) {
    for (const e of KNOWN_EDITORS) {
      if (e.re.test(v.trim()) && !seen.has(e.name)) {
        seen.add(e.name);
        out.push(`${k} "${v.trim().slice(0, 80)}" is a known editor (${e.name})`);
      }
    }
  }
  if (meta.creationDate && meta.modDate && meta.modDate.getTime() - meta.creationDate.getTime() > MOD_DATE_THRESHOLD_MS) {
    out.push(`ModDate ${meta.modDate.toISOString()} is more than 1 day after CreationDate ${meta.creationDate.toISOString()}`);
  }
  return out;
}
