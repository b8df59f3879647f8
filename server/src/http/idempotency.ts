import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  extendIdempotencyLock,
  IDEMPOTENCY_WINDOW_MS,
  releaseIdempotencyKey,
  type IdempotencyScope,
} from '../db/idempotency.ts';
import type { DB } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { ParsedBody } from './body.ts';

/**
 * How long a claim protects its request without news from it. A living request renews it every
 * IDEMPOTENCY_HEARTBEAT_MS, however long it runs; only a crashed owner's key is taken over, this long after its last
 * renewal.
 */
export const IDEMPOTENCY_LOCK_MS = 2 * 60 * 1000;
export const IDEMPOTENCY_HEARTBEAT_MS = 30 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Validates the header; undefined when absent. */
export function readIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header[0] : header;
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new ApiError(400, 'invalid_idempotency_key', `La cabecera Idempotency-Key admite como máximo ${MAX_IDEMPOTENCY_KEY_LENGTH} caracteres.`, 'Idempotency-Key');
  }
  if (key.trim() === '') {
    throw new ApiError(400, 'invalid_idempotency_key', 'La cabecera Idempotency-Key no puede estar vacía.', 'Idempotency-Key');
  }
  return key;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export interface RequestFingerprint {
  /** Stored: compares a retry with the original. */
  hash: string;
  /**
   * Never stored: the key that seals the stored response (AES-256-GCM). It is derived from the request itself (the
   * document's bytes, the URL, the options), so the replay copy can be opened only by a retry that sends the same
   * request again; what rests in the database is unreadable without the document (`keep_results: false`).
   */
  sealKey: Buffer;
}

/**
 * What makes two requests "the same": the operation, its path and query, and the body's meaning
 * (JSON with keys in any order; multipart by field values and file contents, never by boundary,
 * so a client that rebuilds its form on retry still replays).
 */
export function requestFingerprint(operationId: string, path: string, query: Record<string, unknown>, body: ParsedBody): RequestFingerprint {
  const h = crypto.createHash('sha256');
  const k = crypto.createHash('sha256').update('cotejo idempotency seal v1\n');
  const update = (s: string) => {
    h.update(s);
    k.update(s);
  };
  update(`${operationId}\n${path}\n${JSON.stringify(canonical(query))}\n`);
  if (body.kind === 'json') update(`json\n${JSON.stringify(canonical(body.value))}`);
  else if (body.kind === 'multipart') {
    update('multipart\n');
    for (const f of body.fields) update(`f:${f.name}=${JSON.stringify(f.value)}\n`);
    for (const f of body.files) {
      update(`file:${f.field}:${JSON.stringify(f.filename)}:${f.sha256}\n`);
    }
  }
  return { hash: h.digest('hex'), sealKey: k.digest() };
}

const SEALED = 'sealed:v1:';

/** Encrypts a response body for storage under the request's own key. */
export function sealResponseBody(body: string, key: Buffer): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
  return SEALED + Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
}

/** Opens a stored body; a body stored before sealing existed is returned as it is. Undefined when the key is wrong. */
export function openResponseBody(stored: string, key: Buffer): string | undefined {
  if (!stored.startsWith(SEALED)) return stored;
  const raw = Buffer.from(stored.slice(SEALED.length), 'base64');
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyOutcome =
  | { kind: 'proceed'; finish: (response: StoredResponse | null) => Promise<void> }
  | { kind: 'replay'; response: StoredResponse };

/**
 * Claims `key` for this request or explains why not: 422 `idempotency_key_reused` when the key
 * was used for another request, 409 `idempotency_in_progress` while the first one runs, or the
 * stored response to replay. `finish(response)` stores the outcome; `finish(null)` forgets the
 * claim (5xx and unexpected failures), so a retry runs again.
 */
export async function beginIdempotent(
  db: Kysely<DB>,
  clock: Clock,
  scope: IdempotencyScope,
  operationId: string,
  request: RequestFingerprint,
  heartbeatMs = IDEMPOTENCY_HEARTBEAT_MS,
): Promise<IdempotencyOutcome> {
  const fingerprint = request.hash;
  const now = clock.now();
  const claim = await claimIdempotencyKey(
    db,
    scope,
    { operation_id: operationId, request_hash: fingerprint },
    now,
    new Date(now.getTime() + IDEMPOTENCY_LOCK_MS),
    new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS),
  );
  if (claim.claimed) {
    // The lock lives as long as the request: renewed until finish() (a failed renewal is retried on the next beat;
    // the lock still has IDEMPOTENCY_LOCK_MS from the previous one).
    const heartbeat = setInterval(() => {
      extendIdempotencyLock(db, scope, fingerprint, new Date(clock.now().getTime() + IDEMPOTENCY_LOCK_MS)).catch(() => {});
    }, heartbeatMs);
    heartbeat.unref();
    return {
      kind: 'proceed',
      finish: async (response) => {
        clearInterval(heartbeat);
        if (response) await completeIdempotencyKey(db, scope, { ...response, body: sealResponseBody(response.body, request.sealKey) }, clock.now());
        else await releaseIdempotencyKey(db, scope);
      },
    };
  }
  const row = claim.existing;
  if (row.request_hash !== fingerprint || row.operation_id !== operationId) {
    throw new ApiError(422, 'idempotency_key_reused', 'Esta Idempotency-Key ya se usó con una petición distinta. Usa una clave nueva para cada petición.', 'Idempotency-Key');
  }
  if (row.state === 'in_progress') {
    throw new ApiError(409, 'idempotency_in_progress', 'La petición original con esta Idempotency-Key aún se está procesando. Reinténtalo en unos segundos.', 'Idempotency-Key', { 'Retry-After': '1' });
  }
  const body = openResponseBody(row.response_body ?? '', request.sealKey);
  // Same hash, so the same request: a seal that does not open is a damaged row, not a client error.
  if (body === undefined) throw new Error(`idempotency replay copy of ${operationId} does not open with its request's key`);
  return { kind: 'replay', response: { status: row.response_status ?? 200, headers: row.response_headers ?? {}, body } };
}
