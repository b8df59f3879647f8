import { sql, type Kysely } from 'kysely';

/**
 * The dashboard's people (#19, docs/dashboard.md):
 * - `members`: who signs in to an account's console, with a role (`owner`, `admin`, `member`), an argon2id password
 *   hash (null until the invitation is accepted: members are made by accepting one), the console's language, and the
 *   lockout state (failed sign-ins in a row, locked until). One email is one member: unique case-insensitively.
 * - `dashboard_sessions`: one row per signed-in browser, keyed by the SHA-256 of the cookie's token (the token itself
 *   is never stored), with its CSRF token, the mode shown, and both expiries; in the database so that every process
 *   sees a sign-out at once.
 * - `member_invitations`: an invitation by email and role, keyed by the SHA-256 of the link's token.
 * - `dashboard_sign_in_addresses`: failed sign-ins per client address in the current window (a second limit, for
 *   someone trying many emails from one place).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    .addColumn('password_hash', 'text')
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('es').check(sql`language in ('es', 'en', 'pt', 'fr')`))
    .addColumn('failed_sign_ins', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create unique index members_email_idx on members (lower(email))`.execute(db);
  await db.schema.createIndex('members_account_idx').on('members').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('livemode', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('dashboard_sessions_member_idx').on('dashboard_sessions').column('member_id').execute();

  await db.schema
    .createTable('member_invitations')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    // A member id, or null when made by the operator's CLI.
    .addColumn('invited_by', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('accepted_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('member_invitations_account_idx').on('member_invitations').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('dashboard_sign_in_addresses')
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('dashboard_sign_in_addresses').ifExists().execute();
  await db.schema.dropTable('member_invitations').ifExists().execute();
  await db.schema.dropTable('dashboard_sessions').ifExists().execute();
  await db.schema.dropTable('members').ifExists().execute();
}
