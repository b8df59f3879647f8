/**
 * Test mode's document reader (provider `mock`, region `local`). A `ck_test_` key never calls an AI provider: the
 * uploaded file NAME selects a deterministic simulated reading (see ./scenario.ts and docs/test-mode.md), and
 * everything after the reading (validators, checks, verdict, storage, webhooks) runs for real on it.
 *
 * Same input, same reading: every value comes from a PRNG seeded with the scenario (type, base and ignored words of
 * the file name), dates are relative to `referenceDate`, and nothing reads the clock or Math.random.
 */
import { FIELD_DICTIONARY, allEntries, getEntry, type CatalogueEntry } from '../../catalogue/index.ts';
import { isTwoSided } from '../../catalogue/sides.ts';
import { t } from '../../domain/analysis/messages.ts';
import type { Provider, ReadField, ReadInput, Reading, Warning } from '../types.ts';
import { addDays } from './dates.ts';
import { buildDocument, valueFor, type BuildOptions } from './document.ts';
import { genericValue } from './fields.ts';
import { Rng } from './prng.ts';
import { parseScenario, type Scenario } from './scenario.ts';

export { parseScenario, MODIFIERS, ALIASES, type Scenario } from './scenario.ts';
export { checksumTarget, UNIVERSAL_COUNTRIES } from './document.ts';
export { dateFamily } from './timeline.ts';
export { isTwoSided } from '../../catalogue/sides.ts';

/** Warnings of the specification, in its order, and the modifiers that raise them. */
const WARNING_ORDER: Warning[] = [
  'low_quality', 'blurry', 'cropped', 'glare', 'screen_photo_suspected', 'photocopy_suspected', 'edited_suspected', 'multiple_documents', 'side_missing', 'language_mismatch',
];
const WARNINGS_OF: Record<string, Warning[]> = {
  blurry: ['blurry', 'low_quality'],
  low_quality: ['low_quality'],
  glare: ['glare'],
  cropped: ['cropped'],
  screen: ['screen_photo_suspected'],
  photocopy: ['photocopy_suspected'],
  edited: ['edited_suspected'],
  multiple: ['multiple_documents'],
  side_missing: ['side_missing'],
  language_mismatch: ['language_mismatch'],
};

const BACK_FIELDS = [
  'mrz', 'address', 'city', 'region', 'postal_code', 'birth_place', 'father_name', 'mother_name', 'personal_number', 'remarks', 'restrictions',
  'height', 'tax_id', 'social_security_number', 'health_card_number',
];
const US_BACK_FIELDS = ['barcode_data', 'restrictions', 'endorsements', 'mrz'];
const MRZ_REPEATS = ['document_number', 'last_name', 'second_last_name', 'first_name', 'full_name', 'sex', 'nationality', 'birth_date', 'expiry_date', 'support_number', 'id_number'];

/** Fields printed on the back of a two-sided card. */
export function backFields(entry: CatalogueEntry): string[] {
  const set = entry.countries.includes('USA') ? US_BACK_FIELDS : BACK_FIELDS;
  return entry.fields.filter((f) => set.includes(f));
}

/** Fields a scenario leaves unread (null): `incomplete`, and the missing side of a two-sided card. */
export function missingFields(entry: CatalogueEntry, mods: ReadonlySet<string>): string[] {
  const missing = new Set<string>();
  if (isTwoSided(entry)) {
    const back = backFields(entry);
    if (mods.has('front') || mods.has('side_missing')) back.forEach((f) => missing.add(f));
    else if (mods.has('back')) {
      const keep = new Set([...back, ...(entry.mrz ? MRZ_REPEATS : [])]);
      entry.fields.filter((f) => !keep.has(f)).forEach((f) => missing.add(f));
    }
  }
  if (mods.has('incomplete')) {
    const candidates = entry.fields.filter((f) => f !== 'mrz' && f !== 'barcode_data');
    if (candidates.length >= 3) candidates.slice(-2).forEach((f) => missing.add(f));
  }
  return entry.fields.filter((f) => missing.has(f));
}

function sideOf(entry: CatalogueEntry, mods: ReadonlySet<string>): 'front' | 'back' | 'both' | null {
  if (entry.type === 'es_dni_front') return 'front';
  if (entry.type === 'es_dni_back') return 'back';
  if (!isTwoSided(entry)) return null;
  if (mods.has('front') || mods.has('side_missing')) return 'front';
  if (mods.has('back')) return 'back';
  return 'both';
}

const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

/** Deterministic layout: fields stacked in reading order, cards with a photo on the left and the MRZ at the bottom. */
function layout(entry: CatalogueEntry, names: string[], values: Record<string, unknown>, pages: number, precise: boolean, rng: Rng): Record<string, { page: number; bbox: [number, number, number, number] }> {
  const out: Record<string, { page: number; bbox: [number, number, number, number] }> = {};
  const card = isTwoSided(entry) || entry.mrz !== null || entry.type.startsWith('es_dni');
  const back = new Set(card && pages >= 2 ? backFields(entry) : []);
  const perPage = new Map<number, string[]>();
  const plain = names.filter((f) => !back.has(f));
  const usedPages = card ? 1 : Math.max(1, Math.min(pages, Math.ceil(plain.length / 8)));
  plain.forEach((f, i) => {
    const page = card ? 1 : 1 + Math.floor((i * usedPages) / plain.length);
    perPage.set(page, [...(perPage.get(page) ?? []), f]);
  });
  if (back.size) perPage.set(2, names.filter((f) => back.has(f)));
  for (const [page, fs] of perPage) {
    const special: string[] = fs.filter((f) => f === "mrz" || f === "barcode_data");
    const rows = fs.filter((f) => !special.includes(f));
    const top = 0.08;
    const bottom = special.length ? 0.74 : 0.94;
    const h = (bottom - top) / Math.max(rows.length, 1);
    rows.forEach((f, i) => {
      const x0 = (card && page === 1 ? 0.34 : 0.07) + rng.int(0, 30) / 1000;
      const text = JSON.stringify(values[f] ?? '');
      const width = f === 'line_items' ? 0.86 - x0 : Math.min(0.94 - x0, 0.06 + 0.011 * Math.min(text.length, 60));
      const y0 = top + i * h + h * 0.15;
      const y1 = y0 + Math.max(h * (f === 'line_items' ? 0.85 : 0.7), 0.008);
      const pad = precise ? 0 : 0.006;
      out[f] = { page, bbox: [round(Math.max(0, x0 - pad)), round(Math.max(0, y0 - pad)), round(Math.min(1, x0 + width + pad)), round(Math.min(1, y1 + pad))] };
    });
    for (const f of special) {
      out[f] = { page, bbox: f === 'mrz' ? [0.04, 0.79, 0.96, 0.96] : [0.08, 0.78, 0.92, 0.97] };
    }
  }
  return out;
}

/** Two plausible alternatives of the same category (same country first), for `candidates`. */
function alternatives(entry: CatalogueEntry, rng: Rng): string[] {
  if (entry.type === 'unknown_document') return ['certificate', 'proof_of_address'];
  const all = allEntries().filter((e) => e.type !== entry.type && !e.generic);
  const sameCountry = (e: CatalogueEntry) => e.countries.some((c) => entry.countries.includes(c) && c !== '*');
  const score = (e: CatalogueEntry) => (e.category === entry.category ? 2 : 0) + (sameCountry(e) ? 1 : 0);
  const ranked = all
    .map((e) => ({ e, s: score(e), k: rng.fork(e.type).next() }))
    .filter((x) => x.s >= 2 || x.e.category === entry.category)
    .sort((a, b) => b.s - a.s || a.k - b.k);
  const picked = ranked.slice(0, 2).map((x) => x.e.type);
  for (const e of all) if (picked.length < 2 && !picked.includes(e.type)) picked.push(e.type);
  return picked;
}

/** A value for a property of a caller's extraction schema that the type does not carry. */
function schemaValue(name: string, schema: Record<string, unknown>, opts: BuildOptions, rng: Rng): unknown {
  if (FIELD_DICTIONARY[name]) return valueFor(name, opts);
  const type = typeof schema.type === 'string' ? schema.type : Array.isArray(schema.type) ? String(schema.type.find((t) => t !== 'null') ?? 'string') : 'string';
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (type === 'string' && schema.format === 'date') return addDays(opts.referenceDate, -rng.int(2, 40));
  if (type === 'string' && schema.format === 'date-time') return `${addDays(opts.referenceDate, -rng.int(2, 40))}T10:00:00Z`;
  if (type === 'string' && /name/i.test(name)) return valueFor('full_name', opts);
  if (type === 'string' && /date/i.test(name)) return addDays(opts.referenceDate, -rng.int(2, 40));
  if (type === 'object' && schema.properties && typeof schema.properties === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, s] of Object.entries(schema.properties as Record<string, Record<string, unknown>>)) o[k] = schemaValue(k, s ?? {}, opts, rng.fork(k));
    return o;
  }
  if (type === 'array') {
    const items = (schema.items ?? {}) as Record<string, unknown>;
    return [schemaValue(`${name}_item`, items, opts, rng.fork('item'))];
  }
  return genericValue(name, type, rng, { ref: opts.referenceDate });
}

/** The simulated reading of one test-mode upload. Pure and synchronous; `read` wraps it. */
export function simulateReading(input: ReadInput): Reading {
  const scenario: Scenario = parseScenario(input.filename);
  const mods = new Set(scenario.modifiers);
  const entry = getEntry(scenario.type)!;
  const rng = new Rng(`${scenario.seed}|reading`);
  const precise = input.precise_bboxes;
  const mode: Reading['mode'] = precise || (input.mime === 'application/pdf' && input.pages > 10) ? 'ocr+llm' : 'vlm';
  const classification = input.kind === 'classification';
  const local = !classification && (entry.mrz !== null || entry.fields.includes('barcode_data'));
  const providers: Reading['providers'] = [
    ...(mode === 'ocr+llm' ? [{ name: 'mock', region: 'local' as const, role: 'ocr' as const }] : []),
    { name: 'mock', region: 'local' as const, role: 'llm' as const },
    ...(local ? [{ name: 'mock', region: 'local' as const, role: 'local' as const }] : []),
  ];
  const latencyMs = mods.has('slow') ? 45_000 : 700 + rng.int(0, 1800) + 120 * Math.max(1, input.pages);

  if (mods.has('failed')) {
    return {
      document: null,
      candidates: [],
      fields: {},
      warnings: [],
      visual: { signed: null, stamped: null },
      mode,
      providers,
      latencyMs,
      failure: { code: 'processing_failed', message: t(input.language, 'failure.simulated') },
    };
  }

  const options: BuildOptions = {
    entry,
    seed: scenario.seed,
    referenceDate: input.referenceDate,
    holder: mods.has('mismatch_holder') ? null : input.holder,
    avoid: mods.has('mismatch_holder') ? input.holder : null,
    mods,
    country: scenario.country,
    language: input.language,
  };
  const built = buildDocument(options);

  const degraded = mods.has('blurry') || mods.has('glare') || mods.has('low_quality');
  const confidence = mods.has('low_confidence') ? 0.42 : !scenario.recognised ? 0.31 : degraded ? rng.float(0.8, 0.88) : rng.float(0.93, 0.99);
  const rest = 1 - confidence;
  const alts = alternatives(entry, rng.fork('alternatives'));
  const candidates = [
    { type: entry.type, confidence },
    { type: alts[0], confidence: Math.max(0.01, round(rest * 0.6, 2)) },
    { type: alts[1], confidence: Math.max(0.01, round(rest * 0.25, 2)) },
  ];

  const fieldConfidence = (r: Rng) =>
    mods.has('low_confidence') ? r.float(0.3, 0.6) : !scenario.recognised ? r.float(0.45, 0.7) : degraded ? r.float(0.7, 0.88) : r.float(0.9, 0.99);

  const fields: Record<string, ReadField> = {};
  if (!classification && input.extract !== false) {
    const missing = new Set(missingFields(entry, mods));
    let wanted: Array<[string, unknown]>;
    if (input.extract === true) {
      wanted = entry.fields.map((f) => [f, missing.has(f) ? null : built.values[f]]);
    } else {
      const props = ((input.extract as { properties?: Record<string, Record<string, unknown>> }).properties ?? {}) as Record<string, Record<string, unknown>>;
      wanted = Object.entries(props).map(([name, schema]) => {
        if (entry.fields.includes(name)) return [name, missing.has(name) ? null : built.values[name]];
        return [name, schemaValue(name, schema ?? {}, options, rng.fork(`schema-${name}`))];
      });
    }
    const present = wanted.filter(([, v]) => v !== null).map(([f]) => f);
    const boxes = layout(entry, present, built.values, Math.max(1, input.pages), precise, rng.fork('layout'));
    for (const [name, v] of wanted) {
      if (v === null) fields[name] = { value: null, confidence: 0, source: null };
      else fields[name] = { value: v, confidence: fieldConfidence(rng.fork(`conf-${name}`)), source: boxes[name] ?? { page: 1, bbox: null } };
    }
  }

  const warnings = WARNING_ORDER.filter((w) => [...mods].some((m) => WARNINGS_OF[m]?.includes(w)));
  const signs = entry.checks.includes('require_signature');
  const stamps = entry.checks.includes('require_stamp');
  return {
    document: {
      type: entry.type,
      confidence,
      side: sideOf(entry, mods),
      country: scenario.recognised ? built.country : null,
      // The scenario's type is deliberate, with full knowledge: as decisive as a machine-readable zone.
      basis: 'simulated',
    },
    candidates,
    fields,
    warnings,
    visual: {
      signed: mods.has('unsigned') ? false : signs ? true : null,
      stamped: mods.has('unstamped') ? false : stamps ? true : null,
    },
    mode,
    providers,
    latencyMs,
    failure: null,
  };
}

export const testModeProvider: Provider = {
  name: 'mock',
  simulated: true,
  async read(input: ReadInput): Promise<Reading> {
    return simulateReading(input);
  },
};


