/**
 * Organisations, addresses, bank accounts and amounts of a simulated document: companies, invoices, payslips.
 * Split out of document.ts, which builds the whole document from them.
 */

import * as ids from './ids.ts';
import { place } from './person.ts';
import { BANKS, COMPANY_WORDS, PLACES, STREETS, type Lang, type Place } from './pools.ts';
import { ALPHA2, Ctx, IBAN_COUNTRIES } from './context.ts';
import { otherPerson } from './texts.ts';

interface Company {
  name: string;
  legalForm: string;
  taxId: string;
  address: string;
  place: Place;
}

export function company(c: Ctx, key: string, personal = false): Company {
  return c.once(`company-${key}`, (r) => {
    const words = COMPANY_WORDS[c.lang];
    const [short, form] = r.pick(words.forms);
    const name = personal ? otherPerson(c, `${key}-person`) : `${r.pick(words.prefixes)} ${r.pick(words.activities)} ${short}`;
    const pl = place(r, PLACES[c.country] ? c.country : 'ESP');
    const street = r.pick(STREETS[c.country] ?? STREETS.ESP);
    const address = formatAddress(c.country, street, r.int(1, 200), null, pl, true);
    let taxId: string;
    switch (c.country) {
      case 'ESP': taxId = personal ? ids.dni(r.fork('dni')) : ids.cif(r, r.pick(['A', 'B', 'B', 'B'])); break;
      case 'PRT': taxId = ids.ptNif(r, '5'); break;
      case 'FRA': taxId = ids.siren(r); break;
      case 'ITA': taxId = ids.partitaIva(r); break;
      case 'BRA': taxId = ids.cnpj(r); break;
      case 'USA': taxId = ids.ein(r); break;
      case 'DEU': taxId = 'DE' + r.digits(9); break;
      default: taxId = (ALPHA2[c.country] ?? 'EU') + r.digits(9);
    }
    return { name, legalForm: form, taxId, address, place: pl };
  });
}

function formatAddress(country: string, street: string, num: number, floor: string | null, pl: Place, withCity: boolean): string {
  let line: string;
  switch (country) {
    case 'ESP': line = `${street} ${num}${floor ? `, ${floor}º ${'ABCD'[num % 4]}` : ''}`; break;
    case 'PRT': line = `${street}, ${num}${floor ? `, ${floor}.º ${num % 2 ? 'Esq.' : 'Dto.'}` : ''}`; break;
    case 'BRA': line = `${street}, ${num}${floor ? `, apto ${floor}${num % 10}` : ''}`; break;
    case 'FRA': case 'BEL': line = `${num} ${street}`; break;
    case 'USA': line = `${num * 10 + 3} ${street}${floor ? ` Apt ${floor}${'ABCD'[num % 4]}` : ''}`; break;
    case 'GBR': case 'IRL': line = `${num} ${street}`; break;
    default: line = `${street} ${num}`;
  }
  if (!withCity) return line;
  if (country === 'USA') return `${line}, ${pl.city}, ${pl.region} ${pl.postal}`;
  if (country === 'BRA') return `${line}, ${pl.city} - ${pl.region}, ${pl.postal}`;
  if (country === 'ITA') return `${line}, ${pl.postal} ${pl.city} (${pl.region})`;
  if (country === 'GBR' || country === 'IRL') return `${line}, ${pl.city} ${pl.postal}`;
  return `${line}, ${pl.postal} ${pl.city}`;
}

export function homeAddress(c: Ctx, withCity: boolean): string {
  const h = c.person.home;
  return formatAddress(h.country, h.street, h.number, h.floor, h.place, withCity);
}

export function bankAccount(c: Ctx): ids.Account {
  return c.once('account', (r) => {
    const a2 = ALPHA2[c.country] ?? 'ES';
    const country = IBAN_COUNTRIES.has(a2) ? a2 : 'ES';
    return ids.account(r, country, BANKS[country]);
  });
}

export const money = (cents: number) => Math.round(cents) / 100;

export function vatRate(c: Ctx): number {
  return ({ ESP: 21, PRT: 23, FRA: 20, ITA: 22, DEU: 19, AUT: 20, BEL: 21, NLD: 21, GBR: 20, BRA: 0 } as Record<string, number>)[c.country] ?? 21;
}

interface Invoice {
  lines: Array<{ description: string; quantity: number; unit_price: number; amount: number }>;
  base: number;
  rate: number;
  vat: number;
  withholding: number;
  total: number;
}

const SERVICES: Record<Lang, readonly string[]> = {
  es: ['Servicios de consultoría informática', 'Desarrollo de aplicación web', 'Mantenimiento mensual de sistemas', 'Licencia de software (anual)', 'Horas de soporte técnico', 'Diseño gráfico de materiales'],
  pt: ['Serviços de consultoria informática', 'Desenvolvimento de aplicação web', 'Manutenção mensal de sistemas', 'Licença de software (anual)', 'Horas de suporte técnico'],
  fr: ['Prestations de conseil informatique', "Développement d'application web", 'Maintenance mensuelle des systèmes', 'Licence logicielle (annuelle)', "Heures d'assistance technique"],
  en: ['IT consulting services', 'Web application development', 'Monthly systems maintenance', 'Software licence (annual)', 'Technical support hours'],
};

const RETAIL: Record<Lang, readonly string[]> = {
  es: ['Café con leche', 'Tostada con tomate', 'Zumo de naranja', 'Agua mineral 50 cl', 'Croissant', 'Menú del día'],
  pt: ['Café', 'Tosta mista', 'Sumo de laranja', 'Água 50 cl', 'Pastel de nata'],
  fr: ['Café crème', 'Croissant', "Jus d'orange", 'Eau minérale 50 cl', 'Formule midi'],
  en: ['Coffee', 'Toast', 'Orange juice', 'Still water 50 cl', 'Lunch menu'],
};

export function invoice(c: Ctx): Invoice {
  return c.once('invoice', (r) => {
    const simplified = c.type === 'es_simplified_invoice';
    const n = simplified ? r.int(2, 4) : r.int(1, 3);
    const pool = simplified ? RETAIL[c.lang] : SERVICES[c.lang];
    const lines = [];
    let base = 0;
    for (let i = 0; i < n; i++) {
      const quantity = simplified ? r.int(1, 3) : r.int(1, 12);
      const unitCents = simplified ? r.int(120, 1450) : r.int(3500, 95000);
      const amount = Math.round(quantity * unitCents);
      base += amount;
      lines.push({ description: pool[(i + r.int(0, pool.length - 1)) % pool.length], quantity, unit_price: money(unitCents), amount: money(amount) });
    }
    const rate = simplified ? 10 : vatRate(c);
    const vat = Math.round((base * rate) / 100);
    const professional = isProfessionalIssuer(c);
    const withholding = professional ? Math.round((base * 15) / 100) : 0;
    return { lines, base: money(base), rate, vat: money(vat), withholding: money(withholding), total: money(base + vat - withholding) };
  });
}

/** Spanish invoices from a self-employed professional carry 15 % IRPF withholding (issuer NIF = the person's DNI). */
export function isProfessionalIssuer(c: Ctx): boolean {
  return c.type === 'es_invoice' && c.once('professional', (r) => r.chance(0.4));
}

interface Payslip {
  gross: number;
  ss: number;
  withholding: number;
  net: number;
}

export function payslip(c: Ctx): Payslip {
  return c.once('payslip', (r) => {
    const gross = r.int(160000, 420000);
    const [ssRate, whRate] = c.country === 'PRT' ? [11, r.int(10, 20)] : c.country === 'FRA' ? [22, r.int(2, 8)] : [6.47, r.int(8, 19)];
    const ss = Math.round((gross * ssRate) / 100);
    const wh = Math.round((gross * whRate) / 100);
    return { gross: money(gross), ss: money(ss), withholding: money(wh), net: money(gross - ss - wh) };
  });
}
