import type { Transaction } from 'kysely';
import type { components } from '../../../../generated/api.d.ts';
import { resolveExpect } from '../../catalogue/index.ts';
import * as analysesRepo from '../../db/analyses.ts';
import * as repo from '../../db/dossiers.ts';
import type { AnalysisRow, DB, DossierDocumentRow, DossierRow } from '../../db/schema.ts';
import type { Auth, Services } from '../../context.ts';
import { ApiError, resourceMissing } from '../../errors.ts';
import { newId } from '../../ids.ts';
import * as pipeline from '../analysis/pipeline.ts';
import { emitEvent } from '../events.ts';
import type { Analysis } from '../analysis/presenter.ts';
import type { AnalyzeOptions, NormalisedOptions } from '../analysis/options.ts';
import { computeVerdict, type MemberDocument, type Requirement } from './verdict.ts';
import { templateOf, type Template } from './templates.ts';

export type Dossier = components['schemas']['Dossier'];
type CreateBody = components['schemas']['CreateDossierRequest'];
type RequiredDocumentInput = components['schemas']['RequiredDocumentInput'];

const scope = (auth: Auth) => ({ account_id: auth.account.id, livemode: auth.livemode });
type Member = { doc: DossierDocumentRow; analysis: AnalysisRow };

/** One `expect` value or list, resolved to catalogue type ids (422 naming `param` for an unknown type). */
function resolveTypes(expect: string | string[], param: string): string[] {
  const list = Array.isArray(expect) ? expect : [expect];
  const out: string[] = [];
  list.forEach((value, i) => {
    const entry = resolveExpect(value);
    if (!entry) throw new ApiError(422, 'invalid_parameter', `'${value}' no es un tipo de documento del catálogo (GET /v1/document-types).`, Array.isArray(expect) ? `${param}.${i}` : param);
    if (!out.includes(entry.type)) out.push(entry.type);
  });
  return out;
}

function requirementsFromInput(docs: RequiredDocumentInput[], param: string): Requirement[] {
  const seen = new Set<string>();
  return docs.map((d, i) => {
    if (seen.has(d.key)) throw new ApiError(422, 'invalid_parameter', `La clave '${d.key}' está repetida en ${param}.`, `${param}.${i}.key`);
    seen.add(d.key);
    return { key: d.key, label: d.label ?? null, expect: resolveTypes(d.expect, `${param}.${i}.expect`), checks: (d.checks ?? {}) as Requirement['checks'] };
  });
}

/** What the request says the dossier needs; else its template's documents; else the template's `expect` as one `document`. */
function requirementsOf(body: CreateBody, template: Awaited<ReturnType<typeof templateOf>>): Requirement[] {
  if (body.documents !== undefined && body.expect !== undefined) {
    throw new ApiError(422, 'invalid_parameter', 'Envía documents o expect, no ambos.', 'expect');
  }
  if (body.documents) return requirementsFromInput(body.documents, 'documents');
  if (body.expect !== undefined) return resolveTypes(body.expect, 'expect').map((type) => ({ key: type, label: null, expect: [type], checks: {} }));
  if (template?.documents) return template.documents.map((d) => ({ key: d.key, label: d.label, expect: [...d.expect], checks: { ...(d.checks as Requirement['checks']) } }));
  if (template?.expect && template.expect.length > 0) return [{ key: 'document', label: null, expect: [...template.expect], checks: { ...(template.checks as Requirement['checks']) } }];
  return [];
}

/** JSON with keys sorted: jsonb does not keep the order keys were written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]])) : v,
  );
}

const today = (s: Services): string => s.clock.now().toISOString().slice(0, 10);

/** What the verdict needs of a member analysis. */
function memberDocument(s: Services, m: Member): { member: MemberDocument; verdictStatus: MemberDocument['verdictStatus'] } {
  const a = pipeline.present(s, m.analysis) as Analysis;
  const verdict = a.verdict as (Analysis['verdict'] & { final_status?: 'valid' | 'invalid' | null }) | null;
  const review = (a as { review?: { status?: string } | null }).review ?? null;
  const verdictStatus = verdict ? (verdict.final_status ?? verdict.status) : null;
  const fields = Object.fromEntries(Object.entries(a.fields ?? {}).map(([k, f]) => [k, (f as { value: unknown }).value]));
  return {
    verdictStatus,
    member: {
      key: m.doc.key,
      status: m.analysis.status,
      type: m.analysis.status === 'completed' ? (m.analysis.document_type ?? null) : null,
      fields: m.analysis.status === 'completed' ? fields : {},
      verdictStatus: m.analysis.status === 'completed' ? verdictStatus : null,
      reviewPending: review?.status === 'pending',
    },
  };
}

function judge(s: Services, row: DossierRow, members: Member[]) {
  const docs = members.map((m) => memberDocument(s, m));
  const { verdict, checks } = computeVerdict({ requirements: row.requirements as Requirement[], documents: docs.map((d) => d.member), language: row.language, today: today(s) });
  return { verdict, checks, docs };
}

function toDossier(s: Services, row: DossierRow, members: Member[], judged = judge(s, row, members)): Dossier {
  return {
    id: row.id,
    object: 'dossier',
    livemode: row.livemode,
    reference: row.reference,
    template: row.template,
    requirements: row.requirements as Dossier['requirements'],
    language: row.language,
    verification_link_id: row.verification_link_id,
    documents: members.map((m, i) => ({
      key: m.doc.key,
      analysis_id: m.analysis.id,
      type: m.analysis.document_type ?? null,
      status: m.analysis.status,
      verdict_status: m.analysis.status === 'completed' ? judged.docs[i].verdictStatus : null,
      added_at: m.doc.added_at.toISOString(),
    })),
    verdict: judged.verdict as Dossier['verdict'],
    checks: judged.checks as Dossier['checks'],
    metadata: row.metadata,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * The key a document gets when the request names none: the first requirement still empty that accepts its type,
 * else the type itself, suffixed `_2`, `_3`... when taken. Null while the type is unknown.
 */
export function defaultKey(requirements: Requirement[], taken: Set<string>, type: string | null): string | null {
  if (!type) return null;
  const r = requirements.find((q) => q.expect.includes(type) && !taken.has(q.key));
  if (r) return r.key;
  const base = type.slice(0, 37);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
}

/**
 * Judges the dossier again under its row lock (one computation at a time per dossier, so one event per change):
 * documents whose key waited for their type get it, the verdict and checks are stored, and `dossier.verdict_changed`
 * goes out in the same transaction when the verdict (status or reasons) differs from the stored one.
 */
export async function recompute(s: Services, dossierId: string): Promise<Dossier | null> {
  return s.db.transaction().execute(async (trx) => {
    const row = await repo.lockDossier(trx, dossierId);
    if (!row) return null;
    let members = await repo.documentsOf(trx, dossierId);
    let renamed = false;
    for (const m of members) {
      if (!m.doc.auto_key || (m.analysis.status !== 'completed' && m.analysis.status !== 'failed')) continue;
      const taken = new Set(members.filter((o) => o !== m).map((o) => o.doc.key));
      const key = defaultKey(row.requirements as Requirement[], taken, m.analysis.document_type);
      // A failed analysis (or one without a type) keeps its provisional key, the analysis id.
      if (key) await repo.renameDocument(trx, dossierId, m.doc.key, key);
      else await trx.updateTable('dossier_documents').set({ auto_key: false }).where('dossier_id', '=', dossierId).where('key', '=', m.doc.key).execute();
      renamed = true;
    }
    if (renamed) members = await repo.documentsOf(trx, dossierId);
    const judged = judge(s, row, members);
    const changed = canonical(judged.verdict) !== canonical(row.verdict);
    if (changed || renamed || canonical(judged.checks) !== canonical(row.checks)) {
      row.verdict = judged.verdict as DossierRow['verdict'];
      row.checks = judged.checks as DossierRow['checks'];
      row.updated_at = s.clock.now();
      await repo.updateDossierVerdict(trx, dossierId, { verdict: row.verdict, checks: row.checks, updated_at: row.updated_at });
    }
    const dossier = toDossier(s, row, members, judged);
    if (changed) await emitEvent(s, row, 'dossier.verdict_changed', dossier, { within: trx });
    return dossier;
  });
}

async function mustFind(s: Services, auth: Auth, id: string): Promise<DossierRow> {
  const row = await repo.findDossier(s.db, scope(auth), id);
  if (!row) throw resourceMissing(id);
  return row;
}

/**
 * `opts` (#17, verification links): the link's documents as requirements (already resolved), the link it belongs to,
 * and the transaction that creates the link (both or neither are stored).
 */
export async function createDossier(
  s: Services,
  auth: Auth,
  body: CreateBody,
  opts: { requirements?: Requirement[]; verificationLinkId?: string; within?: Transaction<DB> } = {},
): Promise<Dossier> {
  const template = opts.requirements ? null : body.template ? await templateOf(s, auth, body.template) : null;
  const requirements = opts.requirements ?? requirementsOf(body, template);
  const now = s.clock.now();
  const row: repo.NewDossier = {
    id: newId('dossier', now.getTime()),
    account_id: auth.account.id,
    livemode: auth.livemode,
    reference: body.reference ?? null,
    template: template?.id ?? body.template ?? null,
    language: body.language ?? template?.language ?? 'es',
    requirements,
    metadata: (body.metadata as Record<string, string> | undefined) ?? {},
    verdict: { status: 'incomplete', reasons: [] },
    checks: [],
    created_at: now,
    updated_at: now,
  };
  // Born with its verdict computed (no event: nothing changed yet).
  const judged = computeVerdict({ requirements, documents: [], language: row.language, today: today(s) });
  row.verdict = judged.verdict as DossierRow['verdict'];
  row.checks = judged.checks;
  const verification_link_id = opts.verificationLinkId ?? null;
  await repo.insertDossier(opts.within ?? s.db, { ...row, verification_link_id });
  return toDossier(s, { ...row, verification_link_id }, []);
}

export async function getDossier(s: Services, auth: Auth, id: string): Promise<Dossier> {
  await mustFind(s, auth, id);
  // Judged again on read: a member analysis deleted since (its slot emptied) or a window that has run out shows now.
  const d = await recompute(s, id);
  if (!d) throw resourceMissing(id);
  return d;
}

export async function listDossiers(s: Services, auth: Auth, q: { limit: number; starting_after?: string; reference?: string }): Promise<{ data: Dossier[]; has_more: boolean }> {
  const rows = await repo.listDossiers(s.db, scope(auth), q);
  const has_more = rows.length > q.limit;
  const data: Dossier[] = [];
  for (const r of rows.slice(0, q.limit)) {
    const d = await recompute(s, r.id);
    if (d) data.push(d);
  }
  return { data, has_more };
}

export async function deleteDossier(s: Services, auth: Auth, id: string): Promise<{ id: string; object: 'dossier'; deleted: true }> {
  await mustFind(s, auth, id);
  await repo.deleteDossier(s.db, id);
  return { id, object: 'dossier', deleted: true };
}

/** A document to add: an existing analysis, or a file analysed with these options. */
export type AddInput =
  | { kind: 'analysis'; analysisId: string; key: string | undefined }
  | { kind: 'file'; source: pipeline.Source; options: AnalyzeOptions; key: string | undefined; normalise: (raw: AnalyzeOptions, template: Template | null) => NormalisedOptions };

export interface AddResult {
  status: 200 | 202;
  body: Dossier;
}

async function place(s: Services, dossier: DossierRow, analysis: AnalysisRow, key: string | undefined): Promise<AddResult> {
  await s.db.transaction().execute(async (trx: Transaction<DB>) => {
    const locked = await repo.lockDossier(trx, dossier.id);
    if (!locked) throw resourceMissing(dossier.id);
    const members = await repo.documentsOf(trx, dossier.id);
    const taken = new Set(members.filter((m) => m.analysis.id !== analysis.id).map((m) => m.doc.key));
    const finished = analysis.status === 'completed' || analysis.status === 'failed';
    const chosen = key ?? defaultKey(locked.requirements as Requirement[], taken, finished ? analysis.document_type : null);
    // Unknown type (still running): the analysis id holds the slot until the type is known (recompute renames it).
    await repo.putDocument(trx, { dossier_id: dossier.id, key: chosen ?? analysis.id, analysis_id: analysis.id, auto_key: chosen === null && !finished, added_at: s.clock.now() });
  });
  const body = await recompute(s, dossier.id);
  if (!body) throw resourceMissing(dossier.id);
  const finished = analysis.status === 'completed' || analysis.status === 'failed';
  return { status: finished ? 200 : 202, body };
}

export async function addDocument(s: Services, auth: Auth, id: string, input: AddInput): Promise<AddResult> {
  // What the request alone can be refused for, first (as a JSON body's schema errors come before the lookup).
  if (input.kind === 'file') {
    if (input.options.keep_results === false) {
      // The dossier judges its documents again whenever one changes: it needs their results.
      throw new ApiError(422, 'invalid_parameter', 'Un documento de un expediente conserva su resultado: keep_results no puede ser false.', 'options.keep_results');
    }
    if (input.options.template !== undefined) throw new ApiError(422, 'invalid_parameter', 'La plantilla de un documento es la del expediente: no envíes options.template.', 'options.template');
    if (input.options.expect !== undefined) resolveTypes(input.options.expect, 'options.expect');
  }
  const dossier = await mustFind(s, auth, id);
  if (input.kind === 'analysis') {
    // Same account and mode only, and analyses only (a classification has no verdict to count): 404 otherwise.
    const analysis = await analysesRepo.findAnalysis(s.db, scope(auth), 'analysis', input.analysisId);
    if (!analysis) throw new ApiError(404, 'resource_missing', `No existe el análisis '${input.analysisId}'.`, 'analysis_id');
    return place(s, dossier, analysis, input.key);
  }
  const requirements = dossier.requirements as Requirement[];
  const raw: AnalyzeOptions = { ...input.options };
  // The requirement the document fills: the key's, else the first empty one accepting the expected types.
  const members = await repo.documentsOf(s.db, dossier.id);
  const filled = new Set(members.map((m) => m.doc.key));
  let requirement = input.key !== undefined ? requirements.find((r) => r.key === input.key) : undefined;
  if (input.key === undefined && raw.expect !== undefined) {
    const wanted = resolveTypes(raw.expect, 'options.expect');
    requirement = requirements.find((r) => !filled.has(r.key) && r.expect.some((t) => wanted.includes(t)));
  }
  if (requirement) {
    raw.expect ??= requirement.expect;
    raw.checks = { ...(requirement.checks as AnalyzeOptions['checks']), ...(raw.checks ?? {}) };
  } else if (raw.expect === undefined && requirements.length > 0) {
    // No slot chosen yet: any type the dossier needs gives the analysis a verdict.
    raw.expect = [...new Set(requirements.flatMap((r) => r.expect))];
  }
  raw.language ??= dossier.language;
  // The dossier's template applies to its new documents (merged under the requirement's and the request's values).
  const template = dossier.template ? await templateOf(s, auth, dossier.template, { optional: true }) : null;
  if (template) raw.template = template.id;
  const options = input.normalise(raw, template);
  const created = await pipeline.createAnalysis(s, auth, 'analysis', input.source, options);
  const analysis = await analysesRepo.findAnalysisById(s.db, (created.body as Analysis).id);
  if (!analysis) throw new Error('the new analysis vanished');
  return place(s, dossier, analysis, input.key ?? requirement?.key);
}

/** Every dossier holding the analysis, judged again (hooks.ts). */
export async function recomputeDossiersOf(s: Services, analysisId: string): Promise<void> {
  for (const id of await repo.dossierIdsOfAnalysis(s.db, analysisId)) await recompute(s, id);
}
