import { monotonicFactory } from 'ulid';

/** Every id of the API: a prefix plus a ULID, minted here and nowhere else. */
export const ID_PREFIXES = {
  account: 'acct',
  analysis: 'an',
  batch: 'bat',
  webhook_endpoint: 'we',
  export: 'exp',
  request: 'req',
  webhook_message: 'msg',
  verification_link: 'vl',
  dossier: 'dos',
  template: 'tpl',
  api_key: 'key',
  ledger_entry: 'led',
  // Internal ids, never in the API.
  job: 'job',
  event: 'evt',
  /** A review decision's audit record (CLI `audit list`). */
  audit_record: 'aud',
  /** A dashboard member (#19). */
  member: 'mem',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const next = monotonicFactory();

export function newId(kind: IdKind, now: number = Date.now()): string {
  return `${ID_PREFIXES[kind]}_${next(now)}`;
}

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** True when `value` is an id of `kind` (right prefix, well-formed ULID). */
export function isId(kind: IdKind, value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && ULID_RE.test(value.slice(prefix.length));
}
