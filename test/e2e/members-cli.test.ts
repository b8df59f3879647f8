// The operator's `members` commands on an embedded database: invite prints a working invitation URL (the first
// owner is made this way), list shows who accepted; wrong input is refused with a message and exit code 1.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/clock.ts';
import { acceptInvitation } from '../../server/src/web/dashboard/members.ts';
import { migrateToLatest, openDatabase } from '../../server/src/db/database.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-members-cli-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function cli(args: string[]) {
  const r = spawnSync(process.execPath, ['server/src/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', COTEJO_DATA_DIR: dataDir, COTEJO_BASE_URL: 'https://cotejo.example.com' },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('npm run cotejo -- members', () => {
  it('invites the first owner (URL printed once), lists members, refuses wrong input', async () => {
    const created = cli(['accounts', 'create', '--name', 'Acme', '--json']);
    expect(created.code).toBe(0);
    const account = JSON.parse(created.stdout).account as string;

    const empty = cli(['members', 'list', '--account', account]);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('No dashboard members');

    const invited = cli(['members', 'invite', '--account', account, '--email', 'boss@acme.example', '--role', 'owner', '--name', 'The Boss']);
    expect(invited.code).toBe(0);
    const url = invited.stdout.split('\n')[0];
    expect(url).toMatch(/^https:\/\/cotejo\.example\.com\/dashboard\/invitations\/[A-Za-z0-9_-]{43}$/);
    expect(invited.stdout).toContain('as owner');
    const json = JSON.parse(cli(['members', 'invite', '--account', account, '--email', 'ann@acme.example', '--role', 'member', '--json']).stdout);
    expect(json).toMatchObject({ account, email: 'ann@acme.example', role: 'member' });

    // Whoever opens the URL sets a password (the dashboard's page; here its domain function, on the same database).
    const database = await openDatabase({ dataDir });
    try {
      await migrateToLatest(database.db, database.schema);
      const r = await acceptInvitation({ db: database.db, clock: systemClock }, url.split('/').pop()!, { name: 'The Boss', password: 'a long owner passphrase', confirm: 'a long owner passphrase', language: 'es' });
      expect(r.ok).toBe(true);
    } finally {
      await database.close();
    }

    const list = cli(['members', 'list', '--account', account]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^mem_[0-9A-Z]{26} {2}owner {3}boss@acme\.example {2}The Boss$/m);
    const listed = JSON.parse(cli(['members', 'list', '--account', account, '--json']).stdout);
    expect(listed.members).toEqual([expect.objectContaining({ role: 'owner', email: 'boss@acme.example', name: 'The Boss' })]);
    // The password is nowhere in what the CLI prints.
    expect(list.stdout + JSON.stringify(listed)).not.toContain('argon2');

    const again = cli(['members', 'invite', '--account', account, '--email', 'BOSS@acme.example', '--role', 'admin']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already a dashboard member');
    const badRole = cli(['members', 'invite', '--account', account, '--email', 'x@acme.example', '--role', 'king']);
    expect(badRole.code).toBe(1);
    expect(badRole.stderr).toContain('--role must be owner, admin or member');
    const badEmail = cli(['members', 'invite', '--account', account, '--email', 'not-an-email', '--role', 'member']);
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toContain('is not an email address');
    const noAccount = cli(['members', 'list', '--account', 'acct_01JPB2M4N6P8Q0R2S4T6V8W0X2']);
    expect(noAccount.code).toBe(1);
    expect(noAccount.stderr).toContain('no account');
    const usage = cli(['--help']);
    expect(usage.stdout).toContain('members invite --account acct_... --email EMAIL --role owner|admin|member');
  }, 120_000);
});
