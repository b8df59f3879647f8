// The dashboard's people, without HTTP: sign-in with lockout, sessions, invitations and the team's rules. Routes
// (routes.ts, pages/team.ts) and the CLI (`members invite`, `members list`) call these.
import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import * as store from '../../db/dashboard.ts';
import type { DashboardSessionRow, DB, MemberInvitationRow, MemberRole, MemberRow } from '../../db/schema.ts';
import { newId } from '../../ids.ts';
import { checkPassword, hashPassword, passwordProblem } from './passwords.ts';
import { canSetRole } from './permissions.ts';

export type DashboardLanguage = 'es' | 'en' | 'pt' | 'fr';
export const LANGUAGES: readonly DashboardLanguage[] = ['es', 'en', 'pt', 'fr'];
export const isDashboardLanguage = (v: unknown): v is DashboardLanguage => typeof v === 'string' && (LANGUAGES as readonly string[]).includes(v);

interface Deps {
  db: Kysely<DB>;
  clock: Clock;
}

/** Failed sign-ins in a row that lock a member, and for how long. */
export const LOCK_AFTER = 5;
export const LOCK_MS = 15 * 60_000;
/** Failed sign-ins from one client address per window (whatever the emails), and the window. */
export const ADDRESS_LIMIT = 20;
export const ADDRESS_WINDOW_MS = 15 * 60_000;
/** A session ends after this long without a request, and this long after sign-in whatever happens. */
export const IDLE_MS = 2 * 3600_000;
export const ABSOLUTE_MS = 12 * 3600_000;
/** last_seen_at is written at most this often (not a write per page). */
const TOUCH_MS = 60_000;
/** An invitation link works this long. */
export const INVITATION_MS = 7 * 24 * 3600_000;

const sha256 = (text: string): string => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
const randomToken = (): string => crypto.randomBytes(32).toString('base64url');

/** An email address as the team pages take it: one line, an @ with something either side, not absurdly long. */
export function normaliseEmail(raw: string): string | null {
  const email = raw.trim();
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return null;
  return email;
}

export type SignInResult = { ok: true; token: string; session: DashboardSessionRow; member: MemberRow } | { ok: false; reason: 'wrong' | 'address_limited' };

/**
 * Email and password to a new session. Every refusal about the member says the same thing (`wrong`): unknown email,
 * wrong password, locked member. A locked member is refused even with the right password until the lock ends.
 */
export async function signIn(d: Deps, input: { email: string; password: string; ip: string | null; userAgent: string | null }): Promise<SignInResult> {
  const now = d.clock.now();
  const windowStart = new Date(now.getTime() - ADDRESS_WINDOW_MS);
  if (input.ip && (await store.addressFailures(d.db, input.ip, windowStart)) >= ADDRESS_LIMIT) return { ok: false, reason: 'address_limited' };
  const member = await store.findMemberByEmail(d.db, input.email.trim());
  const good = await checkPassword(member?.password_hash ?? null, input.password);
  const locked = member?.locked_until != null && member.locked_until > now;
  if (!member || !good || locked) {
    if (input.ip) await store.recordAddressFailure(d.db, input.ip, now, windowStart);
    // A locked member's tries do not extend the lock (nor count towards the next one).
    if (member && !locked) await store.recordFailedSignIn(d.db, member.id, LOCK_AFTER, new Date(now.getTime() + LOCK_MS));
    return { ok: false, reason: 'wrong' };
  }
  if (member.failed_sign_ins > 0 || member.locked_until) await store.clearFailedSignIns(d.db, member.id);
  // Sessions that ended without a sign-out (a closed browser) are deleted here, the member's next sign-in.
  await store.deleteEndedSessions(d.db, member.id, now, new Date(now.getTime() - IDLE_MS));
  const token = randomToken();
  const session: DashboardSessionRow = {
    token_hash: sha256(token),
    member_id: member.id,
    csrf_token: randomToken(),
    livemode: false,
    created_at: now,
    last_seen_at: now,
    expires_at: new Date(now.getTime() + ABSOLUTE_MS),
    ip: input.ip,
    user_agent: input.userAgent?.slice(0, 512) ?? null,
  };
  const { livemode: _mode, ...row } = session;
  await store.insertSession(d.db, row);
  return { ok: true, token, session, member };
}

/** The session of a cookie's token, or null (unknown, idle too long, past its absolute expiry: then deleted). */
export async function resumeSession(d: Deps, token: string): Promise<store.SessionWithMember | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const hash = sha256(token);
  const found = await store.findSession(d.db, hash);
  if (!found) return null;
  const now = d.clock.now();
  const { session } = found;
  if (session.expires_at <= now || session.last_seen_at.getTime() + IDLE_MS <= now.getTime()) {
    await store.deleteSession(d.db, hash);
    return null;
  }
  if (now.getTime() - session.last_seen_at.getTime() >= TOUCH_MS) {
    await store.updateSession(d.db, hash, { last_seen_at: now });
    session.last_seen_at = now;
  }
  return found;
}

export async function signOut(d: Deps, tokenHash: string): Promise<void> {
  await store.deleteSession(d.db, tokenHash);
}

export async function setSessionMode(d: Deps, tokenHash: string, livemode: boolean): Promise<void> {
  await store.updateSession(d.db, tokenHash, { livemode });
}

export async function setLanguage(d: Deps, memberId: string, language: DashboardLanguage): Promise<void> {
  await store.updateMember(d.db, memberId, { language, updated_at: d.clock.now() });
}

export class TeamError extends Error {
  readonly code: 'forbidden' | 'last_owner' | 'invalid_email' | 'invalid_role' | 'already_member' | 'not_found' | 'self';
  constructor(code: TeamError['code']) {
    super(code);
    this.code = code;
  }
}

export interface Invitation {
  token: string;
  url: string;
  email: string;
  role: MemberRole;
  expires_at: Date;
}

/**
 * An invitation to `accountId`'s dashboard. `by` is the member inviting (checked: only owners invite owners), or
 * null for the operator's CLI. The token is returned once (its hash is stored) inside the URL to send.
 */
export async function invite(
  d: Deps & { baseUrl: string },
  accountId: string,
  by: MemberRow | null,
  input: { email: string; role: string; name?: string | null },
): Promise<Invitation> {
  const role = input.role as MemberRole;
  if (!['owner', 'admin', 'member'].includes(role)) throw new TeamError('invalid_role');
  if (by && !canSetRole(by.role, null, role)) throw new TeamError('forbidden');
  const email = normaliseEmail(input.email);
  if (!email) throw new TeamError('invalid_email');
  if (await store.findMemberByEmail(d.db, email)) throw new TeamError('already_member');
  const now = d.clock.now();
  const token = randomToken();
  const expires = new Date(now.getTime() + INVITATION_MS);
  await store.insertInvitation(d.db, {
    token_hash: sha256(token),
    account_id: accountId,
    email,
    name: input.name?.trim() || null,
    role,
    invited_by: by?.id ?? null,
    created_at: now,
    expires_at: expires,
  });
  return { token, url: `${d.baseUrl}/dashboard/invitations/${token}`, email, role, expires_at: expires };
}

/** The invitation of a link's token while it can still be accepted, or null. */
export async function openInvitation(d: Deps, token: string): Promise<MemberInvitationRow | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const inv = await store.findInvitation(d.db, sha256(token));
  if (!inv || inv.accepted_at || inv.expires_at <= d.clock.now()) return null;
  return inv;
}

export type AcceptResult = { ok: true; member: MemberRow } | { ok: false; problem: 'gone' | 'name' | 'too_short' | 'too_long' | 'mismatch' | 'already_member' };

/** Accepting an invitation makes the member (name and password chosen now); the link then stops working. */
export async function acceptInvitation(d: Deps, token: string, input: { name: string; password: string; confirm: string; language: DashboardLanguage }): Promise<AcceptResult> {
  const inv = await openInvitation(d, token);
  if (!inv) return { ok: false, problem: 'gone' };
  const name = input.name.trim();
  if (name === '' || name.length > 200) return { ok: false, problem: 'name' };
  const problem = passwordProblem(input.password);
  if (problem) return { ok: false, problem };
  if (input.password !== input.confirm) return { ok: false, problem: 'mismatch' };
  const passwordHash = await hashPassword(input.password);
  const now = d.clock.now();
  return d.db.transaction().execute(async (trx) => {
    // Checked first: the invitation stays usable if the email became a member some other way meanwhile (the
    // unique index on lower(email) is the last word when two acceptances race).
    if (await store.findMemberByEmail(trx, inv.email)) return { ok: false, problem: 'already_member' } as const;
    if (!(await store.acceptInvitation(trx, inv.token_hash, now))) return { ok: false, problem: 'gone' } as const;
    const member: MemberRow = {
      id: newId('member', now.getTime()),
      account_id: inv.account_id,
      email: inv.email,
      name,
      role: inv.role,
      password_hash: passwordHash,
      language: input.language,
      failed_sign_ins: 0,
      locked_until: null,
      created_at: now,
      updated_at: now,
    };
    const { failed_sign_ins: _f, locked_until: _l, ...row } = member;
    await store.insertMember(trx, row);
    return { ok: true, member } as const;
  });
}

/**
 * A role change or a removal (`to` null) by `actor`, inside one transaction holding the account: only owners touch
 * owners, and the account always keeps one owner.
 */
export async function changeMember(d: Deps, actor: MemberRow, targetId: string, to: MemberRole | null): Promise<void> {
  if (to !== null && !['owner', 'admin', 'member'].includes(to)) throw new TeamError('invalid_role');
  await d.db.transaction().execute(async (trx) => {
    await store.lockAccountMembers(trx, actor.account_id);
    const target = await store.findMember(trx, targetId);
    if (!target || target.account_id !== actor.account_id) throw new TeamError('not_found');
    if (!canSetRole(actor.role, target.role, to)) throw new TeamError('forbidden');
    if (target.role === 'owner' && to !== 'owner' && (await store.countOwners(trx, actor.account_id)) <= 1) throw new TeamError('last_owner');
    if (to === null) await store.deleteMember(trx, target.id);
    else await store.updateMember(trx, target.id, { role: to, updated_at: d.clock.now() });
  });
}

export async function teamOf(d: Deps, accountId: string): Promise<{ members: MemberRow[]; invitations: MemberInvitationRow[] }> {
  return { members: await store.listMembers(d.db, accountId), invitations: await store.listPendingInvitations(d.db, accountId, d.clock.now()) };
}

export { sha256 as hashToken };
