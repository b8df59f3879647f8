// Who may do what in the dashboard: one table, one check (docs/dashboard.md shows the same table). Every route
// names its action (routes.ts) and is refused with 403 when the member's role is not in that action's row.
import type { MemberRole } from '../../db/schema.ts';

export const ROLES: readonly MemberRole[] = ['owner', 'admin', 'member'];

const ALL: readonly MemberRole[] = ROLES;
const MANAGERS: readonly MemberRole[] = ['owner', 'admin'];

export const PERMISSIONS = {
  /** One's own session: the mode shown, the console's language, signing out. */
  'self.preferences': ALL,
  /** The review queue and an analysis with its document (part 2). */
  'reviews.view': ALL,
  /** Approve or reject a pending review (part 2). Members are the reviewers. */
  'reviews.decide': ALL,
  /** Change a decision already made, with an audit record (part 2; the issue: owners and admins, members may not). */
  'reviews.change_decision': MANAGERS,
  /** Assign a review to a member (part 2). */
  'reviews.assign': MANAGERS,
  'webhooks.view': ALL,
  /** Enable/disable endpoints, send a test event, resend a delivery (part 2). */
  'webhooks.manage': MANAGERS,
  'links.view': ALL,
  'links.cancel': MANAGERS,
  'dossiers.view': ALL,
  /** See the account's API keys (prefixes only), create one (shown once), revoke one. */
  'keys.manage': MANAGERS,
  'usage.view': ALL,
  'settings.view': ALL,
  'settings.edit': MANAGERS,
  /** The team: members and pending invitations. */
  'team.view': ALL,
  /** Invite, change a role, remove a member (owners only for anything that makes or unmakes an owner: see canSetRole). */
  'team.manage': MANAGERS,
} as const satisfies Record<string, readonly MemberRole[]>;

export type Action = keyof typeof PERMISSIONS;

/** The one check: may a member of this role do this? */
export function can(role: MemberRole, action: Action): boolean {
  return (PERMISSIONS[action] as readonly MemberRole[]).includes(role);
}

/**
 * The team rule on top of `team.manage`: only an owner gives the owner role or takes it from someone (inviting,
 * promoting, demoting, removing an owner). Keeping at least one owner is checked where the change is made.
 */
export function canSetRole(actor: MemberRole, from: MemberRole | null, to: MemberRole | null): boolean {
  if (!can(actor, 'team.manage')) return false;
  if (from === 'owner' || to === 'owner') return actor === 'owner';
  return true;
}
