// Events: the outbox (`events`) and, in the same transaction, their fan-out to the account's subscribed webhook
// endpoints and to a verification link's callback (webhooks/deliveries.ts sends them). The one module the pipeline,
// batches, reviews, dossiers and links call to emit an event (shared/ARCHITECTURE.md); none emits through another.
import type { Transaction } from 'kysely';
import type { Services } from '../context.ts';
import { insertEvent } from '../db/analyses.ts';
import type { DB } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { enqueueCallback, fanOutEvent, type OutboxEvent } from '../webhooks/deliveries.ts';

/**
 * Writes the event to the outbox and, in the same transaction, one webhook delivery per subscribed endpoint
 * of its account and mode; inside the caller's transaction when given one (the event then stands or falls with it).
 * The event of a `keep_results: false` analysis (`scope.keep_results === false`) is the one time its result is handed
 * over: the outbox keeps only its id, and its deliveries keep the body only until they are final.
 */
export async function emitEvent(
  s: Services,
  scope: { account_id: string; livemode: boolean; keep_results?: boolean },
  type: string,
  data: unknown,
  opts: {
    within?: Transaction<DB>;
    /** What the event is about (`an_...`, `bat_...`): a second event of this type about it is not written nor sent. */
    subject?: string;
    /** A verification link's `callback_url` (#17): one more delivery of the very body the endpoints get. */
    callback?: { url: string; linkId: string } | null;
  } = {},
): Promise<OutboxEvent | null> {
  const { within, subject, callback } = opts;
  const event = {
    id: newId('event', s.clock.now().getTime()),
    account_id: scope.account_id,
    livemode: scope.livemode,
    type,
    payload: { type, created_at: s.clock.now().toISOString(), data: data as Record<string, unknown> },
    created_at: s.clock.now(),
  };
  const ephemeral = scope.keep_results === false;
  // Answers the event written (its body as sent), or null when an event of this type about `subject` already was.
  const write = async (trx: Transaction<DB>): Promise<OutboxEvent | null> => {
    const stored = ephemeral ? { ...event, payload: { ...event.payload, data: redacted(data) } } : event;
    if (!(await insertEvent(trx, { ...stored, subject_id: subject ?? null }))) return null;
    await fanOutEvent(trx, s.clock, { ...event, ephemeral });
    if (callback) await enqueueCallback(trx, s.clock, { ...event, ephemeral }, callback);
    return { ...event, ephemeral };
  };
  return within ? write(within) : s.db.transaction().execute(write);
}

/** What the outbox keeps of a result it must not store: what it was about, not what it said. */
function redacted(data: unknown): Record<string, unknown> {
  const d = (data ?? {}) as Record<string, unknown>;
  return { id: d.id, object: d.object, redacted: true };
}
