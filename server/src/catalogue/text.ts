/** Text helpers shared by the catalogue (search, slugs) and by other modules (holder-name comparison). */

/** NFD-decompose, strip combining diacritics, lowercase. `Ñandú Öz` -> `nandu oz`. */
export function foldText(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** Kebab-case ASCII slug of a label: `Carte d’identité (CNI)` -> `carte-d-identite-cni`. */
export function slugify(s: string): string {
  return foldText(s)
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
