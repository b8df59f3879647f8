/**
 * ISO 3166-1 alpha-3 codes known to the catalogue: every code a type uses is here, plus the neighbours a client may
 * reasonably filter by. The HTTP layer checks only the shape (`isAlpha3`); an unknown but well-formed code simply
 * matches the universal types.
 */
export const ISO_ALPHA3 = new Set([
  // EU
  'AUT', 'BEL', 'BGR', 'HRV', 'CYP', 'CZE', 'DNK', 'EST', 'FIN', 'FRA', 'DEU', 'GRC', 'HUN', 'IRL', 'ITA', 'LVA',
  'LTU', 'LUX', 'MLT', 'NLD', 'POL', 'PRT', 'ROU', 'SVK', 'SVN', 'ESP', 'SWE',
  // EEA, Switzerland, United Kingdom, European microstates
  'ISL', 'LIE', 'NOR', 'CHE', 'GBR', 'AND', 'MCO', 'SMR', 'VAT',
  // Americas
  'USA', 'CAN', 'MEX', 'BRA', 'ARG', 'COL', 'VEN', 'PER', 'CHL', 'ECU', 'BOL', 'URY', 'PRY', 'CUB', 'DOM',
  // Africa and Asia (largest foreign communities in Spain and Portugal)
  'MAR', 'DZA', 'SEN', 'AGO', 'CPV', 'MOZ', 'CHN', 'IND', 'PAK', 'PHL', 'UKR', 'RUS', 'TUR',
]);

/** Shape check: three ASCII letters, any case (`esp` is accepted and compared as `ESP`); `US` and `ES1` are not alpha-3. */
export function isAlpha3(s: string): boolean {
  return /^[A-Za-z]{3}$/.test(s);
}
