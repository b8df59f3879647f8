/**
 * vCard 4.0 (RFC 6350) of the document holder. Hand-written: the format is a few lines, and the libraries around
 * either target vCard 3.0 or do not fold by octets. Rules applied:
 * - CRLF line endings; lines folded at 75 octets (a continuation line starts with one space), never inside a
 *   UTF-8 sequence;
 * - text values escape `\`, `,`, `;` and newlines (`\\`, `\,`, `\;`, `\n`); compound values (N, ADR) escape each
 *   component and join them with `;`.
 * Field names read (catalogue English snake_case, with Spanish aliases as a fallback): full_name, first_name,
 * last_name, second_last_name, birth_date, sex, address, postal_code, city, region, country, email, phone,
 * document_number (else id_number).
 */
import { fieldDate, labelsFor, valueText, word, type Analysis, type ExportOptions } from './common.ts';

const ALIASES: Record<string, string[]> = {
  full_name: ['full_name', 'nombre_completo'],
  first_name: ['first_name', 'given_name', 'given_names', 'nombre', 'nombres'],
  last_name: ['last_name', 'surname', 'family_name', 'primer_apellido', 'apellido1', 'apellidos'],
  second_last_name: ['second_last_name', 'second_surname', 'segundo_apellido', 'apellido2'],
  birth_date: ['birth_date', 'date_of_birth', 'fecha_nacimiento'],
  sex: ['sex', 'gender', 'sexo'],
  address: ['address', 'domicilio', 'direccion'],
  postal_code: ['postal_code', 'codigo_postal'],
  city: ['city', 'municipio', 'localidad'],
  region: ['region', 'provincia'],
  country: ['country', 'pais'],
  email: ['email'],
  phone: ['phone', 'telefono'],
  document_number: ['document_number', 'numero_documento', 'id_number'],
};

const NAME_KEYS = ['full_name', 'first_name', 'last_name', 'second_last_name'] as const;

/** The first non-empty text value among the aliases of a logical field. */
function pick(a: Analysis, key: keyof typeof ALIASES): string {
  for (const name of ALIASES[key]) {
    const f = a.fields?.[name];
    if (!f) continue;
    const text = valueText(f.value, name).trim();
    if (text) return text;
  }
  return '';
}

/** RFC 6350 section 3.4 escaping of one text value or component. */
export function escapeText(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/,/g, '\\,')
    .replace(/;/g, '\\;')
    .replace(/\r\n|\r|\n/g, '\\n');
}

/** Folds one content line at 75 octets (RFC 6350 section 3.2), keeping UTF-8 sequences whole. */
export function foldLine(line: string): string {
  const encoder = new TextEncoder();
  const parts: string[] = [];
  let current = '';
  let octets = 0;
  let limit = 75;
  for (const ch of line) {
    const size = encoder.encode(ch).length;
    if (octets + size > limit) {
      parts.push(current);
      current = '';
      octets = 0;
      limit = 74; // the leading space of a continuation line counts
    }
    current += ch;
    octets += size;
  }
  parts.push(current);
  return parts.join('\r\n ');
}

/** `YYYY-MM-DD` -> RFC 6350 date `YYYYMMDD`. */
function vcardDate(value: string): string | null {
  const d = fieldDate('birth_date', value);
  return d ? d.replace(/-/g, '') : null;
}

/** Document sex M/F/X (also long forms) -> vCard GENDER sex component (X, unspecified/non-binary, maps to O). */
function vcardGender(sex: string): string | null {
  const s = sex.trim().toUpperCase();
  if (['M', 'MALE', 'MASCULINO', 'MASCULIN', 'H', 'HOMBRE', 'V', 'VARÓN', 'VARON'].includes(s)) return 'M';
  if (['F', 'FEMALE', 'FEMENINO', 'FÉMININ', 'FEMININ', 'FEMININO', 'MUJER'].includes(s)) return 'F';
  if (['X', 'O', 'OTHER', 'NON-BINARY', 'NO BINARIO'].includes(s)) return 'O';
  return null;
}

export function renderVcard(a: Analysis, opts: ExportOptions = {}): Uint8Array {
  const labels = labelsFor(opts.language);
  const first = pick(a, 'first_name');
  const last = pick(a, 'last_name');
  const second = pick(a, 'second_last_name');
  let full = pick(a, 'full_name');
  let family = [last, second].filter(Boolean).join(' ');
  let given = first;
  if (!family && !given && full.includes(',')) {
    // "GARCÍA LÓPEZ, MARÍA JOSÉ": family names before the comma.
    const [fam, ...rest] = full.split(',');
    family = fam.trim();
    given = rest.join(',').trim();
  }
  const hasName = NAME_KEYS.some((k) => pick(a, k) !== '');
  if (!full) full = [given, family].filter(Boolean).join(' ');
  if (!full) full = a.document?.label || a.document?.type || `Cotejo ${a.id}`;

  const lines: string[] = ['BEGIN:VCARD', 'VERSION:4.0', 'PRODID:-//Cotejo//Analysis export//EN'];
  if (hasName) lines.push('KIND:individual');
  lines.push(`FN:${escapeText(full)}`);
  if (family || given) lines.push(`N:${[family, given, '', '', ''].map(escapeText).join(';')}`);

  const bday = vcardDate(pick(a, 'birth_date'));
  if (bday) lines.push(`BDAY:${bday}`);
  const gender = vcardGender(pick(a, 'sex'));
  if (gender) lines.push(`GENDER:${gender}`);

  const street = pick(a, 'address');
  if (street) {
    const adr = ['', '', street, pick(a, 'city'), pick(a, 'region'), pick(a, 'postal_code'), pick(a, 'country')];
    lines.push(`ADR:${adr.map(escapeText).join(';')}`);
  }
  const email = pick(a, 'email');
  if (email) lines.push(`EMAIL:${escapeText(email)}`);
  const phone = pick(a, 'phone');
  if (phone) lines.push(`TEL;VALUE=text:${escapeText(phone)}`);

  const docName = a.document
    ? `${a.document.label || a.document.type} (${a.document.type})`
    : `${labels.analysis} ${a.id} (${word(labels.statuses, a.status)})`;
  const number = pick(a, 'document_number');
  const note = number ? `${docName}, ${labels.documentNumber} ${number}` : docName;
  lines.push(`NOTE:${escapeText(note)}`);
  lines.push(`X-COTEJO-ANALYSIS:${escapeText(a.id)}`);
  lines.push('END:VCARD');

  return new TextEncoder().encode(lines.map(foldLine).join('\r\n') + '\r\n');
}
