// The dashboard's members, sessions, invitations and per-address sign-in failures (#19). The only SQL of the
// dashboard; the rules (lockout, the last owner, who may do what) are in server/src/web/dashboard/.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DashboardSessionRow, DB, MemberInvitationRow, MemberRole, MemberRow } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

export async function insertMember(db: Conn, row: Omit<MemberRow, 'failed_sign_ins' | 'locked_until'>): Promise<void> {
  await db.insertInto('members').values(row).execute();
}

export async function findMember(db: Conn, id: string): Promise<MemberRow | undefined> {
  return db.selectFrom('members').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The member with this email, whatever its case (emails are unique case-insensitively). */
export async function findMemberByEmail(db: Conn, email: string): Promise<MemberRow | undefined> {
  return db.selectFrom('members').selectAll().where(sql<string>`lower(email)`, '=', email.toLowerCase()).executeTakeFirst();
}

export async function listMembers(db: Conn, accountId: string): Promise<MemberRow[]> {
  return db.selectFrom('members').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

export async function updateMember(db: Conn, id: string, patch: Partial<Pick<MemberRow, 'role' | 'name' | 'language' | 'password_hash'>> & { updated_at: Date }): Promise<void> {
  await db.updateTable('members').set(patch).where('id', '=', id).execute();
}

export async function deleteMember(db: Conn, id: string): Promise<void> {
  await db.deleteFrom('members').where('id', '=', id).execute();
}

/**
 * Holds the account's row until the transaction ends, so that two role changes or removals at once cannot both
 * see a second owner and leave none.
 */
export async function lockAccountMembers(trx: Transaction<DB>, accountId: string): Promise<void> {
  await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
}

export async function countOwners(db: Conn, accountId: string): Promise<number> {
  const r = await db.selectFrom('members').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).where('role', '=', 'owner').executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * One more failed sign-in in a row, in one statement (two processes counting at once both count). At `lockAfter`
 * the member is locked until `lockUntil` and the count starts again.
 */
export async function recordFailedSignIn(db: Conn, id: string, lockAfter: number, lockUntil: Date): Promise<void> {
  await db
    .updateTable('members')
    .set({
      failed_sign_ins: sql`case when failed_sign_ins + 1 >= ${lockAfter} then 0 else failed_sign_ins + 1 end`,
      locked_until: sql`case when failed_sign_ins + 1 >= ${lockAfter} then ${lockUntil}::timestamptz else locked_until end`,
    })
    .where('id', '=', id)
    .execute();
}

export async function clearFailedSignIns(db: Conn, id: string): Promise<void> {
  await db.updateTable('members').set({ failed_sign_ins: 0, locked_until: null }).where('id', '=', id).execute();
}

export async function insertSession(db: Conn, row: Omit<DashboardSessionRow, 'livemode'>): Promise<void> {
  await db.insertInto('dashboard_sessions').values(row).execute();
}

export interface SessionWithMember {
  session: DashboardSessionRow;
  member: MemberRow;
}

export async function findSession(db: Conn, tokenHash: string): Promise<SessionWithMember | undefined> {
  const session = await db.selectFrom('dashboard_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  if (!session) return undefined;
  const member = await findMember(db, session.member_id);
  return member ? { session, member } : undefined;
}

export async function updateSession(db: Conn, tokenHash: string, patch: Partial<Pick<DashboardSessionRow, 'last_seen_at' | 'livemode'>>): Promise<void> {
  await db.updateTable('dashboard_sessions').set(patch).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(db: Conn, tokenHash: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('token_hash', '=', tokenHash).execute();
}

/** A member's sessions that have ended (absolute expiry passed, or idle since before `idleBefore`). */
export async function deleteEndedSessions(db: Conn, memberId: string, now: Date, idleBefore: Date): Promise<void> {
  await db
    .deleteFrom('dashboard_sessions')
    .where('member_id', '=', memberId)
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleBefore)]))
    .execute();
}

export async function insertInvitation(db: Conn, row: Omit<MemberInvitationRow, 'accepted_at'>): Promise<void> {
  await db.insertInto('member_invitations').values(row).execute();
}

export async function findInvitation(db: Conn, tokenHash: string): Promise<MemberInvitationRow | undefined> {
  return db.selectFrom('member_invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Marks the invitation used; false when it already was (the same link posted twice at once makes one member). */
export async function acceptInvitation(db: Conn, tokenHash: string, at: Date): Promise<boolean> {
  const r = await db.updateTable('member_invitations').set({ accepted_at: at }).where('token_hash', '=', tokenHash).where('accepted_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Invitations not accepted and not expired, newest first. */
export async function listPendingInvitations(db: Conn, accountId: string, now: Date): Promise<MemberInvitationRow[]> {
  return db
    .selectFrom('member_invitations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute();
}

/** Failed sign-ins from `address` since `windowStart` (0 when the window it counted in has passed). */
export async function addressFailures(db: Conn, address: string, windowStart: Date): Promise<number> {
  const r = await db.selectFrom('dashboard_sign_in_addresses').select('failures').where('address', '=', address).where('window_started_at', '>', windowStart).executeTakeFirst();
  return r?.failures ?? 0;
}

/** One more failure from `address`: counted in its window, or a new window begun at `now`. */
export async function recordAddressFailure(db: Conn, address: string, now: Date, windowStart: Date): Promise<void> {
  await db
    .insertInto('dashboard_sign_in_addresses')
    .values({ address, failures: 1, window_started_at: now })
    .onConflict((oc) =>
      oc.column('address').doUpdateSet({
        failures: sql`case when dashboard_sign_in_addresses.window_started_at > ${windowStart}::timestamptz then dashboard_sign_in_addresses.failures + 1 else 1 end`,
        window_started_at: sql`case when dashboard_sign_in_addresses.window_started_at > ${windowStart}::timestamptz then dashboard_sign_in_addresses.window_started_at else ${now}::timestamptz end`,
      }),
    )
    .execute();
}

/**
 * The retention sweep (jobs/worker.ts): every session that has ended, whoever's, and the failure counts of addresses
 * whose window has passed, so neither table grows with every browser and every address that ever came by.
 */
export async function deleteStaleDashboardRows(db: Conn, now: Date, idleBefore: Date, windowStart: Date): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleBefore)])).execute();
  await db.deleteFrom('dashboard_sign_in_addresses').where('window_started_at', '<=', windowStart).execute();
}

export type { MemberRole };
