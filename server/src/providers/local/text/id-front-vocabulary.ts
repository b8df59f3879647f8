/**
 * What the printed face of an identity document says in words (text/id-front.ts): the titles of cards, the labels of
 * their fields in the languages they are printed in, the numbered fields of driving licences, and the national ways
 * of writing a value (a sex as a word, the UK driver number and its issue number). Folded text (`foldPhrase`: lower
 * case, no accents) unless said otherwise.
 */

export type Kind = 'driving' | 'state_id' | 'passport_card' | 'permanent_resident' | 'id_card' | 'residence';

/** Printed titles of cards (folded, `foldPhrase`), beside the catalogue's own keywords of each kind's types. */
export const TITLES: Record<Kind, RegExp> = {
  // The space between a title's words optional, and no word boundary around the title's core: PP-OCR reads a card's
  // title glued (`DRIVERLICENSECLASSE`, `UNITEDSTATESPERMANENTRESIDENT`, `NONDRIVERIDENTIFICATION CARD`,
  // `DOCUMENTONACIONALDEIDENTIDAD`, `CARTEIRANACIONALDEHABILIAC`: Brazil's CNH title read with its end cut short).
  driving: /(driver'?s?|drivers|driving|commercial ?driver|chauffeur|operator'?s?) ?licen[cs]e|\b(learner|instruction)'?s? permit\b|\bpermis de conduire\b|\blicencia de (conducir|conduccion|manejo)\b|\bpermiso de conduc\w*|\bcarta de conducao\b|\bcarteira ?(nacional ?)?de ?habili|fuhrerschein|\bpatente di guida\b|rijbewijs/,
  state_id: /identification ?card|\bnon-? ?driver|\bstate id\b|\bid card\b(?=.*\b(state|dmv|real id)\b)/,
  passport_card: /passport ?card|\bcarte passeport\b/,
  permanent_resident: /permanent ?resident|\bresident since\b|\bgreen card\b|\bi-551\b/,
  id_card: /identity ?card|\bcarte (nationale )?d'? ?identite\b|cartenationaled'?identite|\bdocumento ?(nacional ?)?de ?identidad|\bcartao de cidadao\b|\bcarta d'? ?identita\b|personalausweis|identiteitskaart|\bidentity document\b|\bnational id\b|\bleternjoftim\b|\bdowod osobisty\b|\bcarte d'identite\b|\bcedula de (identidad|ciudadania)\b/,
  residence: /residence ?(permit|card)|\btitre de sejour\b|\bpermiso de residencia\b|\btarjeta de (identidad de )?extranjero\b|\bautorizacao de residencia\b|aufenthaltstitel|\bpermesso di soggiorno\b/,
};

/** Labels (folded): the field they name. Order matters: longer, more specific labels first; each match masks its text. */
export const LABELS: Array<[string, RegExp]> = [
  ['alternate_name', /\bnom d'? ?usage\b|\balte\w*nate name\b|\bnom d'epouse\b/g],
  ['birth_place', /\bplace of birth\b|\blieu de naiss\w*|\blugar de nacimiento\b|\blocal de nascimento\b|\bvendlindj\w*|\bgeburtsort\b|\bluogo di nascita\b/g],
  // Brazil prints `DATA NASCIMENTO` and `DATA EMISSAO` without `de` (read glued: `DATANASCIMENTO`).
  ['birth_date', /\bdate (o|e)f birth\b|\bdate of bir\w*|\bbirth ?date\b|\bdate afin\b|\bdate de ?naiss\w*|\bfecha de nacimiento\b|\bdata ?(de )?nascimento\b|\bdatelindj\w*|\bgeburtsdatum\b|\bdata di nascita\b|\bdob\b/g],
  ['expiry_date', /\bdate of expiry\b|\bexpiry date\b|\bexpiry\b|\bexpires?\b|\bexp\b|\bdate d'? ?expir\w*|\bvalable jusqu\w*|\bvalid until\b|\bdata e skadimit\b|\bfecha de (caducidad|validez|vencimiento)\b|\bvalid[oa] hasta\b|\bvalidade\b|\bgultig bis\b|\bscadenza\b/g],
  ['issue_date', /\bdate of issue\b|\bissue ?date\b|\biss\b|\bissued\b|\bdate de delivrance\b|\bdata e leshimit\b|\bfecha de (expedicion|emision)\b|\bdata ?(de )?emissao\b|\bausstellungsdatum\b|\bdata di rilascio\b/g],
  ['personal_number', /\bpersonal (no|number)\b|\bnr\.? personal\b/g],
  ['personal_number', /\bn[°º] personnel\b/g],
  // Peru's DNI number, printed with its check digit after a hyphen (`CUI 40000000-1`): read without it (readIdFrontFields).
  ['cui', /\bcui\b/g],
  // Brazil's CNH numbers its licence by `Nº REGISTRO`, France's CNI its card by `N° DU DOCUMENT` (the `°` often lost).
  ['document_number', /\b(document|passport|card|id|licen[cs]e) ?(no\b\.?|number\b|n[°º]|#)|\bn[°º]? ?(du|de) (document|passeport|pasaporte|la carte)\b|\bnumero de (documento|pasaporte|passaporte)\b|\bnr\.? leternjoftim\w*|\b(ausweis|pass|karten)nummer\b|\bcustomer (identifier|id)\b|\bn[°º]? ?(de )?registro\b|\bdln?\b|\bdni\b|\bn[uo]m\w{0,3}r\b|\bnumero\b|\bno\.(?!\p{L})|\bn[°º](?!\p{L})|\bnr\.?(?!\p{L})/gu],
  ['nationality', /\bnationalit\w*|\bnatio\w*lty\b|\bnacionalidad\b|\bnacionalidade\b|\bshtetesi\w*|\bstaatsangehorigkeit\b|\bcittadinanza\b/g],
  ['sex', /\bsex[eo]?\b|\bgender\b|\bgenero\b|\bsexe\b|\bgjinia\b|\bgeschlecht\b|\bsesso\b/g],
  // Peru's DNI names the given names `Prenombres`; Croatia's (and its neighbours') `Ime` (`Ime/Name`), the family name `Prezime`.
  ['first_name', /\bsecondary identifier\b|\bidentifiant secondaire\b|\bgiven ?names?\b|\bfirst ?names?\b|\bforenames?\b|\bprenoms?\b|\bprenume\w*|\bprenombres\b|\bime\b|\bnombres?\b|\bnomes?\b|\bemri\b|\bvorname\w*|\bvoornamen\b|\bimi(e|ona)\b|\bjmeno\b|\bvardas\b|\bfn\b/g],
  // The second family name of Spanish-speaking countries (`Segundo Apellido`): a label of its own, its value joined
  // to the first family name's (readIdFrontFields).
  ['second_last_name', /\bsegund\w? apellido\b|\bsecond surname\b/g],
  ['last_name', /\bprimary identifier\b|\bidentifiant primaire\b|\b(nom\w{0,2})?s[uv][rm]n?a[mn]e\b|\blast ?name\b|\bfamily ?name\b|\bnom\b|\bnomi?\b|\bnume\b|\bapellidos?\b|\bapelidos?\b|\bsobrenome\b|\bmbiemri\b|\bnachname\b|\bprezime\b|\bcognome\b|\bachternaam\b|\bnazwisko\b|\bprijmeni\b|\bpavarde\b|\bln\b/g],
  // `Name` alone: the family name where it stands beside another language's label of it (`Name/Surname/Nom`), else
  // only a label (a US card's NAME is the whole name): decided in findLabels.
  ['name', /\bname\b/g],
  ['address', /\baddress\b|\badresse\b|\bdomicilio\b|\bmorada\b|\bvendbanimi\b|\banschrift\b|\bindirizzo\b/g],
  ['other', /\bsignature\b|\bfirma\b|\bautoriteti\b|\bauthority\b|\bclass\b|\brestr\w*|\bend\b|\bendorse?\w*|\bhgt\b|\bhair\b|\beyes\b|\bwgt\b|\bdd\b|\bheight\b|\bdonor\b/g],
];

/**
 * Numbered fields of driving licences: the EU model (Directive 2006/126/EC, Annex I: 1. surname, 2. other names,
 * 3. birth date and place, 4a. issue, 4b. expiry, 4c. authority, 5. licence number, 8. address) and AAMVA's card
 * design (1 family name, 2 given names, 3 DOB, 4a ISS, 4b EXP, 4d DLN, 8 address, 15 sex). A number is a label only
 * with its dot (`1.`), its closing parenthesis (`4a)`, as Russia and Ukraine print them) or its letter (`4b`): a bare
 * digit is too often part of a value.
 */
export const NUMBERED_EU: Record<string, string> = { '1': 'last_name', '2': 'first_name', '3': 'birth_date', '4a': 'issue_date', '4b': 'expiry_date', '4c': 'other', '5': 'document_number', '8': 'address' };
export const NUMBERED_US: Record<string, string> = { '1': 'last_name', '2': 'first_name', '3': 'birth_date', '4a': 'issue_date', '4b': 'expiry_date', '4c': 'other', '4d': 'document_number', '5': 'other', '8': 'address', '15': 'sex' };

/** AAMVA's name keys as a word's start: the key alone or glued to its name (`1`, `1SAMPLE`, `2.DEREK`), and the key to strip. */
export const US_NAME_KEYS = Object.fromEntries(
  Object.entries(NUMBERED_US)
    .filter(([, field]) => field === 'last_name' || field === 'first_name')
    .map(([key, field]) => [field, { word: new RegExp(`^${key}[.:]?(\\p{Lu}[\\p{Lu}'-]+)?$`, 'u'), key: new RegExp(`^${key}[.:]?`) }]),
) as Record<'last_name' | 'first_name', { word: RegExp; key: RegExp }>;

/** A word that is a numbered field's label: its key and its mark (`.`, `:`, `)`; none for `4b`). */
export const NUMBERED_LABEL = /^(\d{1,2}[a-d]?)([.:)])?$/i;

/** Numbered field labels a card prints (AAMVA and the EU licence model): glued to their value by PP-OCR (`1PUBLIC`). */
export const NUMBERED_KEYS = new Set(['1', '2', '3', '4a', '4b', '4c', '4d', '5', '8', '9', '9a', '12', '15', '16', '17', '18', '19']);

/**
 * The sex as printed: a letter (`F`), the letters of two languages (Croatia's `Ž/F`, `M/M`: the last one that is an
 * ICAO letter), or a word (`FEMENINO`, `MASCULINO`, `FEMININO`, `FÉMININ`, `WEIBLICH`, `MÄNNLICH`, `FEMALE`, `MALE`).
 */
export function sexValue(text: string): 'M' | 'F' | 'X' | null {
  const t = text.normalize('NFD').replace(/\p{M}+/gu, '').toUpperCase().replace(/[^A-Z/]/g, '');
  // One letter beside marks the OCR made of the other language's (`之/F` for `Ž/F`).
  if (/^[MFX]$/.test(t.replace(/\//g, ''))) return t.replace(/\//g, '') as 'M' | 'F' | 'X';
  const parts = t.split('/').filter(Boolean);
  if (parts.length === 2 && parts.every((p) => p.length === 1)) {
    const last = parts.reverse().find((p) => /^[MFX]$/.test(p));
    return (last as 'M' | 'F' | 'X' | undefined) ?? null;
  }
  if (/^(FEMENINO|FEMININO|FEMININ|FEMININE|FEMALE|FEMME|WEIBLICH|FEMMINILE)$/.test(t)) return 'F';
  if (/^(MASCULINO|MASCULIN|MASCULINE|MALE|HOMME|MANNLICH|MASCHILE)$/.test(t)) return 'M';
  return null;
}

/**
 * The UK driver number (DVLA: 5 letters of the surname padded with 9s, 6 digits, 2 initials padded with 9s, a digit,
 * 2 check characters; 16 in all) and the 2-digit issue number the licence prints after it in field 5, apart or read
 * glued (`MORGA753116SM9IJ 35`, `MORGA753116SM9IJ35`): the driver number alone.
 */
export const GB_DRIVER_NUMBER = /^([A-Z9]{5}\d{6}[A-Z9]{2}\d[A-Z0-9]{2})(\d{2})?$/;
