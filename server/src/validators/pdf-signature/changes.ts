// Analysis of incremental updates appended after a signed revision.
// Every object whose definition differs between the signed revision and the final
// revision is classified by the places it is referenced from in the signed revision
// ("contexts"); a change is permitted only if it is permitted in every context.
import {
  type PdfDocument,
  type PdfDict,
  type PdfValue,
  type RevisionState,
  dictOf,
  isName,
  isRef,
  pdfEqual,
} from './pdf.ts';

type Ctx =
  | 'catalog'
  | 'info'
  | 'pagetree'
  | 'annotsarray'
  | 'annot'
  | 'acroform'
  | 'formres'
  | 'fieldvalue'
  | 'ap'
  | 'dss'
  | 'extensions'
  | 'metadata'
  | 'sig'
  | 'names'
  | 'other';

export interface ChangeReport {
  /** Descriptions of changes that are not permitted after signing. */
  disallowed: string[];
  /** Descriptions of permitted changes (annotations, form filling, signatures, DSS, time-stamps...). */
  permitted: string[];
}

const CATALOG_MUTABLE = new Set(['AcroForm', 'DSS', 'Extensions', 'Metadata', 'Version', 'Names']);
/** Name trees that may change after signing (named appearance streams of stamp annotations). */
const NAMES_MUTABLE = new Set(['AP']);
const ACROFORM_MUTABLE = new Set(['Fields', 'SigFlags', 'NeedAppearances', 'DR', 'DA']);
const ANNOT_MUTABLE = new Set(['V', 'AP', 'AS', 'M', 'MK', 'F', 'Kids', 'NM', 'Popup', 'Contents', 'CreationDate', 'T']);

function childCtx(ctx: Ctx, key: string, owner: PdfDict | null): Ctx | null {
  const type = owner ? owner.m.get('Type') : undefined;
  if (owner && (isName(type, 'Sig') || isName(type, 'DocTimeStamp'))) return 'sig';
  switch (ctx) {
    case 'catalog':
      if (key === 'Pages') return 'pagetree';
      if (key === 'AcroForm') return 'acroform';
      if (key === 'DSS') return 'dss';
      if (key === 'Extensions') return 'extensions';
      if (key === 'Metadata') return 'metadata';
      if (key === 'Perms') return 'sig';
      if (key === 'Names') return 'names';
      return 'other';
    case 'names':
      return key === 'AP' ? 'ap' : 'other';
    case 'pagetree':
      if (key === 'Parent') return null;
      if (key === 'Kids') return 'pagetree';
      if (key === 'Annots') return 'annotsarray';
      return 'other';
    case 'annotsarray':
      return 'annot';
    case 'annot':
      if (key === 'P' || key === 'Parent') return key === 'Parent' ? 'annot' : null;
      if (key === 'AP') return 'ap';
      if (key === 'Kids' || key === 'Popup' || key === 'IRT') return key === 'Kids' ? 'annotsarray' : 'annot';
      if (key === 'V') return isName(owner?.m.get('FT'), 'Sig') ? 'sig' : 'fieldvalue';
      return 'other';
    case 'acroform':
      if (key === 'Fields') return 'annotsarray';
      if (key === 'DR') return 'formres';
      return 'other';
    case 'sig':
      if (key === 'Data') return null; // DocMDP /Data points back to the catalog
      return 'sig';
    default:
      return ctx; // ap, dss, extensions, metadata, info, formres, fieldvalue, other: whole subtree
  }
}

/** Context implied by the object's own type, whatever the path it was reached by. */
function typeCtx(d: PdfDict): Ctx | null {
  const t = d.m.get('Type');
  if (isName(t, 'Sig') || isName(t, 'DocTimeStamp')) return 'sig';
  if (isName(t, 'Catalog')) return 'catalog';
  if (isName(t, 'Page') || isName(t, 'Pages')) return 'pagetree';
  if (isName(t, 'Annot') || isName(d.m.get('Subtype'), 'Widget') || d.m.has('FT')) return 'annot';
  return null;
}

/** Maps object number -> contexts in which the signed revision references it. */
interface Contexts {
  ctx: Map<number, Set<Ctx>>;
  /** Appearance objects -> annotations whose /AP leads to them. */
  apOwners: Map<number, Set<number>>;
}

function contexts(doc: PdfDocument, state: RevisionState): Contexts {
  const out = new Map<number, Set<Ctx>>();
  const apOwners = new Map<number, Set<number>>();
  const queue: Array<[number, Ctx, number]> = [];
  let owner = -1; // annotation that owns the appearance being walked
  const add = (num: number, ctx: Ctx) => {
    if (ctx === 'ap' && owner >= 0) {
      let o = apOwners.get(num);
      if (!o) apOwners.set(num, (o = new Set()));
      o.add(owner);
    }
    let s = out.get(num);
    if (!s) {
      s = new Set();
      out.set(num, s);
    }
    if (s.has(ctx)) return;
    s.add(ctx);
    queue.push([num, ctx, owner]);
  };
  const elemCtx = (c: Ctx): Ctx => (c === 'annotsarray' ? 'annot' : c);
  const visitDict = (d: PdfDict, ctx: Ctx, depth: number) => {
    const c: Ctx = typeCtx(d) ?? ctx;
    for (const [k, x] of d.m) {
      const cc = childCtx(c, k, d);
      if (cc) visitValue(x, cc, depth + 1);
    }
  };
  const visitValue = (v: PdfValue, c: Ctx, depth: number): void => {
    if (depth > 60) return;
    if (isRef(v)) add(v.num, c);
    else if (Array.isArray(v)) for (const x of v) visitValue(x, elemCtx(c), depth + 1);
    else {
      const d = dictOf(v);
      if (d) visitDict(d, c, depth);
    }
  };
  const t = state.trailer;
  if (t) {
    const root = t.m.get('Root');
    const info = t.m.get('Info');
    if (isRef(root)) add(root.num, 'catalog');
    if (isRef(info)) add(info.num, 'info');
    for (const [k, v] of t.m) if (!['Root', 'Info', 'Prev', 'Size', 'ID', 'XRefStm', 'Type', 'W', 'Index', 'Length', 'Filter', 'DecodeParms'].includes(k)) visitValue(v, 'other', 0);
  }
  for (let qi = 0; qi < queue.length && qi < 500_000; qi++) {
    const [num, ctx, own] = queue[qi];
    owner = ctx === 'annot' ? num : ctx === 'ap' ? own : -1;
    let v: PdfValue;
    try {
      v = doc.getObject(num, state);
    } catch {
      continue;
    }
    const d = dictOf(v);
    if (d && (isName(d.m.get('Type'), 'Sig') || isName(d.m.get('Type'), 'DocTimeStamp')) && ctx !== 'sig') add(num, 'sig');
    if (d) {
      const tc = typeCtx(d);
      if (tc === 'annot' && ctx !== 'annot') add(num, 'annot');
      if (tc === 'annot') owner = num;
      visitDict(d, ctx, 0);
    }
    else if (Array.isArray(v)) for (const x of v) visitValue(x, elemCtx(ctx), 1);
  }
  return { ctx: out, apOwners };
}

function changedKeys(doc: PdfDocument, a: PdfDict, b: PdfDict): string[] {
  const keys = new Set([...a.m.keys(), ...b.m.keys()]);
  return [...keys].filter((k) => !pdfEqual(doc, a.m.get(k) ?? null, b.m.get(k) ?? null));
}

interface Env {
  doc: PdfDocument;
  before: RevisionState;
  after: RevisionState;
  cx: Contexts;
}

type Kind = 'catalog' | 'page' | 'pages' | 'annot' | 'sig' | null;
function kindOf(v: PdfValue): Kind {
  const d = dictOf(v);
  if (!d) return null;
  const t = d.m.get('Type');
  if (isName(t, 'Catalog')) return 'catalog';
  if (isName(t, 'Page')) return 'page';
  if (isName(t, 'Pages')) return 'pages';
  if (isName(t, 'Sig') || isName(t, 'DocTimeStamp')) return 'sig';
  if (isName(t, 'Annot') || isName(d.m.get('Subtype'), 'Widget') || d.m.has('FT')) return 'annot';
  return null;
}

/** Field type and value, following /Parent (inheritance). */
function fieldInfo(env: Env, v: PdfValue, state: RevisionState): { ft: string | null; value: PdfValue; isField: boolean } {
  let d = dictOf(v);
  let ft: string | null = null;
  let value: PdfValue | undefined;
  let isField = false;
  for (let i = 0; d && i < 20; i++) {
    const f = d.m.get('FT');
    if (ft === null && isName(f)) ft = f.v;
    if (d.m.has('FT') || d.m.has('T') || d.m.has('Parent')) isField = true;
    if (value === undefined && d.m.has('V')) value = env.doc.resolve(d.m.get('V'), state);
    const p = d.m.get('Parent');
    d = p === undefined ? null : dictOf(env.doc.resolve(p, state));
  }
  return { ft, value: value ?? null, isField: isField && ft !== null };
}

function refsIn(v: PdfValue, out: number[], depth = 0): void {
  if (depth > 4) return;
  if (isRef(v)) out.push(v.num);
  else if (Array.isArray(v)) for (const x of v) refsIn(x, out, depth + 1);
  else {
    const d = dictOf(v);
    if (d) for (const x of d.m.values()) refsIn(x, out, depth + 1);
  }
}

/** A non-signature form field whose value did not change between the two revisions. */
function valueUnchanged(env: Env, num: number): boolean {
  let ov: PdfValue, nv: PdfValue;
  try {
    ov = env.doc.getObject(num, env.before);
    nv = env.doc.getObject(num, env.after);
  } catch {
    return false;
  }
  const a = fieldInfo(env, ov, env.before);
  if (!a.isField || a.ft === 'Sig') return false;
  const b = fieldInfo(env, nv, env.after);
  return pdfEqual(env.doc, a.value, b.value);
}

function judgeAnnot(env: Env, num: number, od: PdfDict, nd: PdfDict): string[] {
  const { doc } = env;
  const problems: string[] = [];
  const keys = changedKeys(doc, od, nd);
  const bad = keys.filter((k) => !ANNOT_MUTABLE.has(k));
  if (bad.length) problems.push(`annotation/field keys changed: ${bad.join(', ')}`);
  if (isName(od.m.get('FT'), 'Sig') && od.m.get('V') != null && keys.includes('V')) problems.push('value of an already signed signature field replaced');
  if (keys.includes('AP') || keys.includes('AS')) {
    // the appearance being replaced must not be shared with other parts of the document
    const refs: number[] = [];
    const oldAp = od.m.get('AP') ?? null;
    refsIn(oldAp, refs);
    if (isRef(oldAp)) refsIn(doc.resolve(oldAp, env.before), refs);
    for (const r of refs) {
      const cs = env.cx.ctx.get(r);
      if (cs && [...cs].some((c) => c !== 'ap')) problems.push(`replaced appearance object ${r} is also used as ${[...cs].filter((c) => c !== 'ap').join('/')}`);
    }
    if (valueUnchanged(env, num)) problems.push('field appearance changed without a change of the field value');
  }
  return problems;
}

/** References present in the old array (direct or indirect) and missing from the new one. */
function removedRefs(doc: PdfDocument, oldA: PdfValue | undefined, newA: PdfValue | undefined, env: Env): number[] {
  const o = doc.resolve(oldA ?? null, env.before);
  const n = doc.resolve(newA ?? null, env.after);
  if (!Array.isArray(o)) return [];
  const keep = new Set(Array.isArray(n) ? n.filter(isRef).map((r) => r.num) : []);
  return o.filter(isRef).filter((r) => !keep.has(r.num)).map((r) => r.num);
}

function judge(env: Env, num: number, oldV: PdfValue, newV: PdfValue, cs: Set<Ctx> | undefined): string[] {
  const { doc } = env;
  const od = dictOf(oldV);
  const nd = dictOf(newV);
  const kind = kindOf(oldV);
  if (newV === null) return ['object deleted'];
  if (kind) {
    if (!od || !nd || kindOf(newV) !== kind) return [`${kind} object replaced by a different kind of object`];
    switch (kind) {
      case 'catalog': {
        const keys = changedKeys(doc, od, nd);
        const bad = keys.filter((k) => !CATALOG_MUTABLE.has(k));
        if (keys.includes('Names')) {
          const on = dictOf(doc.resolve(od.m.get('Names'), env.before));
          const nn = dictOf(doc.resolve(nd.m.get('Names'), env.after));
          const empty: PdfDict = { t: 'dict', m: new Map(), start: 0, end: 0 };
          const nk = changedKeys(doc, on ?? empty, nn ?? empty).filter((k) => !NAMES_MUTABLE.has(k));
          if (nk.length) bad.push(`Names (${nk.join(', ')})`);
        }
        if (keys.includes('AcroForm')) {
          const oa = dictOf(doc.resolve(od.m.get('AcroForm'), env.before));
          const na = dictOf(doc.resolve(nd.m.get('AcroForm'), env.after));
          if (oa && !na) bad.push('AcroForm removed');
          if (oa && na) {
            const ak = changedKeys(doc, oa, na).filter((k) => !ACROFORM_MUTABLE.has(k));
            if (ak.length) bad.push(`AcroForm (${ak.join(', ')})`);
            const gone = removedRefs(doc, oa.m.get('Fields'), na.m.get('Fields'), env);
            if (gone.length) bad.push(`AcroForm Fields (removed ${gone.join(', ')})`);
          }
        }
        return bad.length ? [`catalog keys changed: ${bad.join(', ')}`] : [];
      }
      case 'page': {
        const bad = changedKeys(doc, od, nd).filter((k) => k !== 'Annots');
        const gone = removedRefs(doc, od.m.get('Annots'), nd.m.get('Annots'), env);
        if (gone.length) bad.push(`Annots (removed ${gone.join(', ')})`);
        return bad.length ? [`page changed: ${bad.join(', ')}`] : [];
      }
      case 'pages':
        return ['page tree changed (pages added, removed or reordered)'];
      case 'sig':
        return ['signature dictionary changed after signing'];
      case 'annot':
        return judgeAnnot(env, num, od, nd);
    }
  }
  if (!cs || cs.size === 0) return [];
  const problems: string[] = [];
  for (const c of cs) {
    switch (c) {
      case 'annotsarray': {
        // annotations and fields may be added, not removed
        if (Array.isArray(oldV) && Array.isArray(newV)) {
          const keep = new Set(newV.filter(isRef).map((r) => r.num));
          const gone = oldV.filter(isRef).filter((r) => !keep.has(r.num));
          if (gone.length) problems.push(`annotations/fields removed: ${gone.map((r) => r.num).join(', ')}`);
        } else if (!Array.isArray(newV)) problems.push('annotation/field array replaced');
        break;
      }
      case 'names': {
        if (!od || !nd) problems.push('name dictionary replaced');
        else {
          const bad = changedKeys(doc, od, nd).filter((k) => !NAMES_MUTABLE.has(k));
          if (bad.length) problems.push(`name trees changed: ${bad.join(', ')}`);
        }
        break;
      }
      case 'info':
      case 'formres':
      case 'fieldvalue':
      case 'dss':
      case 'extensions':
      case 'metadata':
        break;
      case 'ap': {
        for (const owner of env.cx.apOwners.get(num) ?? []) {
          if (valueUnchanged(env, owner)) problems.push(`appearance of field object ${owner} changed without a change of the field value`);
        }
        break;
      }
      case 'acroform': {
        if (!od || !nd) problems.push('AcroForm replaced');
        else {
          const bad = changedKeys(doc, od, nd).filter((k) => !ACROFORM_MUTABLE.has(k));
          const gone = removedRefs(doc, od.m.get('Fields'), nd.m.get('Fields'), env);
          if (gone.length) bad.push(`Fields (removed ${gone.join(', ')})`);
          if (bad.length) problems.push(`AcroForm keys changed: ${bad.join(', ')}`);
        }
        break;
      }
      case 'sig':
        problems.push('object of a signature dictionary changed');
        break;
      default:
        problems.push(`object used as ${c} changed after signing`);
    }
  }
  return problems;
}

/** Compares the signed revision (ending at `signedEnd`) with the final revision. */
export function analyzeChanges(doc: PdfDocument, signedEnd: number, finalEnd: number): ChangeReport {
  const report: ChangeReport = { disallowed: [], permitted: [] };
  const before = doc.stateAt(signedEnd);
  const after = doc.stateAt(finalEnd);
  const beforeRoot = before.trailer?.m.get('Root');
  const afterRoot = after.trailer?.m.get('Root');
  if (isRef(beforeRoot) && isRef(afterRoot) && beforeRoot.num !== afterRoot.num) {
    report.disallowed.push(`document catalog replaced (object ${beforeRoot.num} -> ${afterRoot.num})`);
  }
  let ctxs: Contexts | null = null;
  const nums = new Set([...after.entries.keys(), ...before.entries.keys()]);
  for (const num of nums) {
    const a = after.entries.get(num);
    const b = before.entries.get(num);
    if (a && b && a.type === b.type && ((a.type === 1 && b.type === 1 && a.offset === b.offset) || (a.type === 2 && b.type === 2 && a.stm === b.stm && a.idx === b.idx && !isStmChanged(before, after, a.stm)))) continue;
    if (!a && b) continue; // not mentioned in later sections: unchanged
    let oldV: PdfValue = null;
    let newV: PdfValue = null;
    try {
      oldV = doc.getObject(num, before);
    } catch {
      oldV = null;
    }
    try {
      newV = doc.getObject(num, after);
    } catch (e) {
      report.disallowed.push(`object ${num} unreadable in the final revision: ${(e as Error).message}`);
      continue;
    }
    if (oldV === null) {
      // new object: judged through the objects that reference it
      continue;
    }
    const ty = dictOf(oldV)?.m.get('Type');
    if (isName(ty, 'XRef') || isName(ty, 'ObjStm')) continue;
    if (pdfEqual(doc, oldV, newV)) continue;
    ctxs ??= contexts(doc, before);
    const cs = ctxs.ctx.get(num);
    const problems = judge({ doc, before, after, cx: ctxs }, num, oldV, newV, cs);
    const label = `object ${num}${cs ? ` [${[...cs].join('/')}]` : ''}`;
    if (problems.length) report.disallowed.push(`${label}: ${[...new Set(problems)].join('; ')}`);
    else report.permitted.push(`${label} updated`);
  }
  return report;
}

function isStmChanged(before: RevisionState, after: RevisionState, stm: number): boolean {
  const a = after.entries.get(stm);
  const b = before.entries.get(stm);
  return !(a && b && a.type === 1 && b.type === 1 && a.offset === b.offset);
}

