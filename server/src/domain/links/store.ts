// A verification link's rows and its URL's token (service.ts says how the token is made): all the SQL of links, and
// the token's key, derived once per services object from the signing secret.
import crypto from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Services } from '../../context.ts';
import { getOrCreateSetting } from '../../db/settings.ts';
import type { AnalysisRow, DB, LinkDocumentState, LinkEventEntry, VerificationLinkRow } from '../../db/schema.ts';
import { isId } from '../../ids.ts';

type Conn = Kysely<DB> | Transaction<DB>;

// ---------------------------------------------------------------------------------------------------------------
// Token
// ---------------------------------------------------------------------------------------------------------------

// Per services object (one per process; tests make several): read once, then never again, so that no transaction
// ever waits on it (PGlite has one connection: a read outside a transaction inside one would wait forever).
const tokenKeys = new WeakMap<object, Buffer>();

export async function tokenKey(s: Services): Promise<Buffer> {
  let key = tokenKeys.get(s);
  if (!key) {
    const secret = s.config.signingSecret ?? (await getOrCreateSetting(s.db, 'url_signing_secret', () => crypto.randomBytes(32).toString('base64url')));
    key = crypto.createHash('sha256').update(`cotejo-link-tokens:${secret}`).digest();
    tokenKeys.set(s, key);
  }
  return key;
}

/** The secret token of a link's URL (never stored, never logged). */
export async function tokenOf(s: Services, linkId: string): Promise<string> {
  return crypto.createHmac('sha256', await tokenKey(s)).update(linkId).digest('base64url');
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

export async function urlOf(s: Services, linkId: string): Promise<string> {
  return `${s.config.baseUrl}/l/${await tokenOf(s, linkId)}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Repository (all SQL of links)
// ---------------------------------------------------------------------------------------------------------------

export type NewLink = Omit<VerificationLinkRow, 'metadata' | 'documents' | 'consent' | 'events' | 'face_verification' | 'face_match' | 'mask_fields'> & {
  mask_fields: string[];
  metadata: Record<string, string>;
  documents: LinkDocumentState[];
  consent: VerificationLinkRow['consent'];
  events: LinkEventEntry[];
  face_verification: VerificationLinkRow['face_verification'];
  face_match: VerificationLinkRow['face_match'];
};

export const JSON_COLUMNS = ['metadata', 'documents', 'consent', 'events', 'face_verification', 'face_match', 'mask_fields'] as const;

export function serialise(patch: Partial<NewLink>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...patch };
  for (const c of JSON_COLUMNS) if (c in patch) out[c] = JSON.stringify(patch[c] ?? null);
  return out;
}

export async function insertLink(db: Conn, row: NewLink): Promise<void> {
  await db.insertInto('verification_links').values(serialise(row) as never).execute();
}

export async function updateLink(db: Conn, id: string, patch: Partial<NewLink>): Promise<void> {
  await db.updateTable('verification_links').set(serialise(patch) as never).where('id', '=', id).execute();
}

export async function findLink(db: Conn, sc: { account_id: string; livemode: boolean }, id: string): Promise<VerificationLinkRow | undefined> {
  if (!isId('verification_link', id)) return undefined;
  return db.selectFrom('verification_links').selectAll().where('id', '=', id).where('account_id', '=', sc.account_id).where('livemode', '=', sc.livemode).executeTakeFirst();
}

export async function lockLink(trx: Transaction<DB>, id: string): Promise<VerificationLinkRow | undefined> {
  return trx.selectFrom('verification_links').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function findLinkByToken(db: Conn, token: string): Promise<VerificationLinkRow | undefined> {
  if (typeof token !== 'string' || token.length < 20 || token.length > 100) return undefined;
  return db.selectFrom('verification_links').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirst();
}

export async function analysesOf(db: Conn, ids: string[]): Promise<Map<string, AnalysisRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('analyses').selectAll().where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r]));
}
