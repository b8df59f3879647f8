/**
 * The dates of a simulated document, all relative to the reference date and coherent with each other: birth before
 * issue before expiry, validity periods of the document family (Spanish DNI: 2/5/10 years by age), periods that end
 * before the document that reports them is issued, valid on the reference date unless the scenario says `expired`.
 */
import type { CatalogueEntry } from '../../catalogue/index.ts';
import type { DocumentFamily } from '../../validators/index.ts';
import { addDays, addMonths, addYears, ageYears, maxDate, minDate, monthEnd, monthStart, ymd, yearOf } from './dates.ts';
import type { Rng } from './prng.ts';

/** The date_consistency family the pipeline should use for a type (passports, ID cards, licences, permits). */
export function dateFamily(entry: CatalogueEntry): DocumentFamily {
  if (entry.type.includes('passport')) return 'passport';
  if (entry.category === 'driving') return 'driving_licence';
  if (entry.category === 'residence') return 'residence_permit';
  if (entry.category === 'identity') return 'national_id';
  return 'other';
}

const OTHER_VALIDITY_MONTHS: Record<string, number> = {
  sports_license: 12, es_sports_federation_license: 12, sports_medical_certificate: 12, es_sports_fitness_certificate: 12,
  es_disability_certificate: 60, es_health_card: 60, health_insurance_card: 24, eu_health_insurance_card: 36, it_health_card: 72,
  es_fishing_license: 12, es_hunting_license: 12, es_job_seeker_registration: 3, es_large_family_title: 60, certificate: 6,
  power_of_attorney: 60, tax_certificate: 12, pt_tax_clearance_certificate: 3, pt_tax_domicile_certificate: 12,
  pt_company_permanent_certificate: 12, vehicle_insurance: 12, es_vehicle_insurance: 12, us_school_id: 12,
};

const RESIDENCE_VALIDITY_MONTHS: Record<string, number> = {
  es_tie: 60, es_eu_family_residence_card: 60, us_permanent_resident_card: 120, us_employment_authorization_document: 24,
  br_crnm: 24, pt_residence_permit: 24, fr_residence_permit: 48, it_residence_permit: 24, visa: 3, residence_permit: 60,
  pt_eu_registration_certificate: 60,
};

/** Months of validity of a document issued when the holder was `age`. */
export function validityMonths(entry: CatalogueEntry, country: string, age: number): number {
  const t = entry.type;
  switch (dateFamily(entry)) {
    case 'passport':
      if (t === 'ie_passport_card') return 60;
      if (country === 'ESP') return age < 30 ? 60 : 120;
      return age < 18 ? 60 : 120;
    case 'national_id':
      if (country === 'ESP') return age < 5 ? 24 : age < 30 ? 60 : 120;
      if (t === 'fr_cni_old') return age < 18 ? 120 : 180;
      if (t === 'us_military_id' || t === 'us_military_dependent_id') return 48;
      if (t === 'us_merchant_mariner_card' || t === 'us_tribal_document') return 60;
      return age < 18 ? 60 : 120;
    case 'driving_licence':
      if (t === 'international_driving_permit') return 12;
      if (country === 'USA') return 60;
      if (country === 'FRA') return 180;
      if (country === 'BRA' || country === 'ITA') return age < 50 ? 120 : 60;
      if (country === 'ESP') return age < 65 ? 120 : 60;
      return 120;
    case 'residence_permit':
      return RESIDENCE_VALIDITY_MONTHS[t] ?? 60;
    default:
      return OTHER_VALIDITY_MONTHS[t] ?? 12;
  }
}

export interface Dates {
  birth_date: string;
  issue_date: string;
  expiry_date: string;
  event_date: string;
  death_date: string;
  marriage_date: string;
  registration_date: string;
  start_date: string;
  end_date: string;
  period_start_date: string;
  period_end_date: string;
  payment_date: string;
  due_date: string;
  filing_date: string;
  completion_date: string;
  incorporation_date: string;
  first_registration_date: string;
  inspection_expiry_date: string;
  vaccination_date: string;
  leave_start_date: string;
  admit_until_date: string;
  tax_year: number;
  tax_period: string;
  academic_year: string;
  season: string;
}

const QUARTERLY_FORMS = new Set(['es_modelo_303', 'es_modelo_130', 'es_modelo_111']);

/** Filing of annual returns: month/day of the filing in the year after the tax year. */
const ANNUAL_FILING: Record<string, [number, number]> = {
  es_modelo_100: [5, 20], es_modelo_190: [1, 24], es_modelo_390: [1, 27], es_modelo_200: [7, 18], us_form_1040: [4, 8],
  pt_irs_statement: [5, 12], tax_return: [5, 20], fr_tax_notice: [5, 22],
};

/** Typical age at completion of studies, by type. */
const COMPLETION_AGE: Record<string, number> = {
  es_eso_title: 16, es_bachillerato_title: 18, es_vocational_training_title: 20, es_university_degree: 22, diploma: 22, language_certificate: 19,
};

export interface TimelineInput {
  entry: CatalogueEntry;
  country: string;
  ref: string;
  birth: string;
  expired: boolean;
  old: boolean;
  rng: Rng;
}

export function timeline(t: TimelineInput): Dates {
  const { entry, country, ref, birth, rng } = t;
  const type = entry.type;
  const has = (f: string) => entry.fields.includes(f);
  const family = dateFamily(entry);
  const atLeast = (d: string, min: string) => maxDate(d, min);
  const notAfter = (d: string, max: string) => minDate(d, max);

  let issue: string;
  let expiry: string;
  if (has('expiry_date') && family !== 'other') {
    // Identity, residence and driving documents: the family's validity period, valid on the reference date.
    const minIssue = family === 'driving_licence' ? addYears(birth, country === 'USA' ? 16 : 18) : addDays(birth, 30);
    let months = 0;
    issue = ref;
    expiry = ref;
    for (let i = 0; i < 24; i++) {
      if (t.expired) {
        // Expired recently; further back when no issue date fits (a DNI renewed at 27 expired at 32, not at 37).
        expiry = addDays(ref, -rng.int(30, 400 + i * 300));
        // A validity period consistent with the holder's age on the issue date it implies.
        const periods = [...new Set(Array.from({ length: 101 }, (_, a) => validityMonths(entry, country, a)))];
        const consistent = periods.find((m) => validityMonths(entry, country, Math.max(0, ageYears(birth, maxDate(addMonths(expiry, -m), birth)))) === m);
        months = consistent ?? periods[0];
        issue = addMonths(expiry, -months);
        if (consistent !== undefined && issue > birth) break;
      } else {
        const guess = validityMonths(entry, country, Math.max(0, ageYears(birth, ref)));
        const span = Math.max(20, Math.floor(guess * 30.4) - 40);
        issue = atLeast(addDays(ref, -rng.int(15, span)), notAfter(minIssue, addDays(ref, -15)));
        // The laminated French card was issued until 2021 (when such a card can still be valid on the reference date).
        if (type === 'fr_cni_old') {
          const clamped = minDate(issue, addDays('2021-08-01', -rng.int(0, 900)));
          if (clamped > birth && addMonths(clamped, validityMonths(entry, country, ageYears(birth, clamped))) > addDays(ref, 10)) issue = clamped;
        }
        months = validityMonths(entry, country, Math.max(0, ageYears(birth, issue)));
        expiry = addMonths(issue, months);
        if (expiry > addDays(ref, 10) && issue > birth) break;
      }
    }
  } else if (has('expiry_date')) {
    const months = validityMonths(entry, country, 30);
    if (t.expired) {
      expiry = addDays(ref, -rng.int(20, 200));
      issue = addMonths(expiry, -months);
    } else {
      issue = addDays(ref, -rng.int(3, Math.min(40, Math.floor(months * 30.4) - 10)));
      expiry = addMonths(issue, months);
    }
  } else {
    issue = addDays(ref, -rng.int(2, 40));
    expiry = addMonths(issue, 12);
  }
  if (t.old && !(has('expiry_date') && family !== 'other')) issue = addDays(ref, -rng.int(400, 520));
  if (issue < birth) issue = addDays(birth, rng.int(1, 30));

  const d: Dates = {
    birth_date: birth,
    issue_date: issue,
    expiry_date: expiry,
    event_date: birth,
    death_date: ref,
    marriage_date: ref,
    registration_date: ref,
    start_date: ref,
    end_date: ref,
    period_start_date: ref,
    period_end_date: ref,
    payment_date: ref,
    due_date: ref,
    filing_date: ref,
    completion_date: ref,
    incorporation_date: ref,
    first_registration_date: ref,
    inspection_expiry_date: ref,
    vaccination_date: ref,
    leave_start_date: ref,
    admit_until_date: ref,
    tax_year: yearOf(ref) - 1,
    tax_period: '0A',
    academic_year: '',
    season: '',
  };
  const recent = (min: number, max: number) => addDays(ref, -rng.int(min, max));
  const adult = addYears(birth, 18);

  // Academic year and sports season running on the reference date (September to June / July).
  const y = yearOf(ref);
  const startY = Number(ref.slice(5, 7)) >= 9 ? y : y - 1;
  d.academic_year = `${startY}-${startY + 1}`;
  d.season = `${startY}-${startY + 1}`;

  // Employment start (also self-employment, residence "since", hosting start).
  d.start_date = notAfter(atLeast(addDays(ref, -rng.int(200, 3000)), addYears(birth, 16)), addDays(ref, -30));
  d.end_date = addMonths(d.start_date, rng.pick([12, 24, 36]));
  while (d.end_date <= ref) d.end_date = addMonths(d.end_date, 12);

  // Previous calendar month.
  d.period_start_date = monthStart(addMonths(monthStart(ref), -1));
  d.period_end_date = monthEnd(d.period_start_date);

  d.registration_date = notAfter(atLeast(addDays(ref, -rng.int(300, 4000)), birth), addDays(issue, -1));
  d.incorporation_date = addDays(ref, -rng.int(900, 9000));
  d.first_registration_date = addDays(ref, -rng.int(300, 4000));
  d.inspection_expiry_date = t.expired ? addDays(ref, -rng.int(20, 300)) : addDays(ref, rng.int(30, 700));
  d.vaccination_date = notAfter(atLeast(addDays(ref, -rng.int(60, 900)), addDays(birth, 60)), addDays(ref, -10));
  d.admit_until_date = addDays(ref, rng.int(60, 170));
  d.due_date = addDays(issue, 30);
  d.payment_date = issue;
  d.marriage_date = notAfter(atLeast(addYears(birth, rng.int(24, 36)), adult), addDays(ref, -rng.int(60, 400)));
  if (d.marriage_date < birth) d.marriage_date = addDays(birth, 1);
  d.completion_date = notAfter(addDays(addYears(birth, COMPLETION_AGE[type] ?? 22), rng.int(150, 2000)), addDays(ref, -90));
  if (d.completion_date < birth) d.completion_date = addDays(birth, 1);
  d.leave_start_date = recent(1, 12);
  d.death_date = recent(15, 120);

  switch (entry.category) {
    case 'education':
      if (has('completion_date')) d.issue_date = notAfter(addDays(d.completion_date, rng.int(30, 300)), addDays(ref, -3));
      break;
    case 'civil':
      if (has('death_date')) d.issue_date = notAfter(addDays(d.death_date, rng.int(3, 12)), ref);
      if (has('marriage_date')) d.issue_date = atLeast(d.issue_date, addDays(d.marriage_date, 1));
      break;
    case 'vehicle':
      if (has('first_registration_date') && !has('expiry_date')) d.issue_date = notAfter(addDays(d.first_registration_date, rng.int(0, 900)), addDays(ref, -3));
      break;
    default:
      break;
  }

  // Documents about a period: payslips, statements, bills, receipts, benefits.
  if (has('period_start_date')) {
    if (['utility_bill', 'es_utility_bill', 'fr_proof_of_address', 'br_proof_of_residence'].includes(type)) {
      d.period_end_date = addDays(ref, -rng.int(12, 25));
      d.period_start_date = addDays(addMonths(d.period_end_date, -2), 1);
      d.issue_date = addDays(d.period_end_date, rng.int(1, 6));
    } else if (type === 'es_sepe_certificate') {
      d.period_start_date = addDays(ref, -rng.int(60, 300));
      d.period_end_date = addMonths(d.period_start_date, rng.pick([6, 12, 24]));
      d.start_date = d.period_start_date;
    } else {
      d.issue_date = type.includes('payslip') ? d.period_end_date : notAfter(addDays(d.period_end_date, rng.int(1, 5)), ref);
      if (type === 'es_self_employed_receipt') d.payment_date = d.period_end_date;
    }
  }
  if (type === 'es_company_certificate') {
    d.end_date = recent(5, 30);
    d.issue_date = notAfter(addDays(d.end_date, rng.int(1, 4)), ref);
  }
  if (type === 'es_sick_leave_report') {
    d.end_date = addDays(d.leave_start_date, rng.int(15, 45));
    d.issue_date = d.leave_start_date;
  }
  if (type === 'es_lease_agreement' || type === 'lease_agreement') {
    d.start_date = monthStart(addDays(ref, -rng.int(40, 700)));
    d.end_date = addDays(addYears(d.start_date, rng.pick([1, 5])), -1);
    while (d.end_date <= ref) d.end_date = addYears(d.end_date, 1);
    d.issue_date = addDays(d.start_date, -rng.int(1, 10));
  }
  if (type === 'contract' || type.includes('employment_contract')) {
    d.start_date = notAfter(atLeast(addDays(ref, -rng.int(30, 900)), addYears(birth, 16)), addDays(ref, -5));
    d.end_date = addMonths(d.start_date, rng.pick([12, 24, 36]));
    while (d.end_date <= ref) d.end_date = addMonths(d.end_date, 12);
    d.issue_date = addDays(d.start_date, -rng.int(1, 7));
  }
  if (type === 'vehicle_insurance' || type === 'es_vehicle_insurance') {
    d.start_date = addMonths(d.expiry_date, -12);
    d.issue_date = d.start_date;
  }
  if (type === 'fr_health_insurance_certificate') {
    d.start_date = monthStart(addDays(ref, -rng.int(30, 300)));
    d.end_date = addDays(addYears(d.start_date, 1), -1);
  }
  if (type === 'us_employment_authorization_document') d.start_date = d.issue_date;
  if (type === 'us_permanent_resident_card') d.start_date = notAfter(atLeast(addDays(d.expiry_date, -rng.int(3700, 7000)), addDays(birth, 1)), addMonths(d.expiry_date, -120));
  if (type === 'us_form_i9') d.issue_date = addDays(d.start_date, rng.int(0, 3));
  if (type === 'es_aeat_census_certificate' || type === 'es_modelo_036') d.start_date = notAfter(atLeast(addDays(ref, -rng.int(200, 3000)), adult), addDays(ref, -30));
  if (type === 'es_modelo_036') d.filing_date = addDays(d.start_date, -rng.int(1, 20));
  if (type === 'fr_housing_certificate') d.start_date = addDays(ref, -rng.int(60, 900));
  if (type === 'es_pension_certificate') d.start_date = notAfter(atLeast(addYears(birth, 65), addDays(ref, -3000)), addDays(ref, -60));
  if (type === 'vaccination_certificate') d.issue_date = atLeast(d.issue_date, d.vaccination_date);
  if (type === 'payment_receipt' || type === 'es_payment_receipt') d.payment_date = d.issue_date;
  if (type === 'es_job_seeker_registration') d.registration_date = addDays(d.issue_date, -rng.int(30, 400));
  if (type === 'es_census_certificate') d.registration_date = notAfter(atLeast(addDays(ref, -rng.int(300, 5000)), birth), addDays(d.issue_date, -1));

  // Tax periods and filing dates.
  if (QUARTERLY_FORMS.has(type)) {
    // Latest quarter whose filing window (1-20 of the following month; January 30 for Q4) is over.
    let q = Math.floor((Number(ref.slice(5, 7)) - 1) / 3); // current quarter index 0-3
    let qy = y;
    for (let i = 0; i < 6; i++) {
      q -= 1;
      if (q < 0) {
        q = 3;
        qy -= 1;
      }
      const deadline = q === 3 ? ymd(qy + 1, 1, 30) : ymd(qy, (q + 1) * 3 + 1, 20);
      if (deadline <= ref) {
        d.filing_date = addDays(deadline, -rng.int(0, 15));
        break;
      }
    }
    d.tax_year = qy;
    d.tax_period = `${q + 1}T`;
  } else if (type.startsWith('es_modelo_') || ANNUAL_FILING[type]) {
    const [fm, fd] = ANNUAL_FILING[type] ?? [5, 20];
    let ty = y - 1;
    while (ymd(ty + 1, fm, fd) > ref) ty -= 1;
    d.tax_year = ty;
    d.tax_period = '0A';
    d.filing_date = ymd(ty + 1, fm, fd);
  }
  if (type === 'es_modelo_036') d.filing_date = atLeast(d.filing_date, adult);
  d.due_date = addDays(d.issue_date, 30);
  if (has('payment_date') && type === 'es_self_employed_receipt') d.issue_date = d.payment_date;
  return d;
}
