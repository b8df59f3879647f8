// What a person sees of an account's name and of the server's address, through the CLI and a real server the way
// an operator runs them (issue #29): the account is named at the first start (COTEJO_ACCOUNT_NAME) or with `accounts
// create --name`, renamed with `accounts update --name`, and the hosted page and the emails say that name;
// `accounts update` without a setting is a usage error (it was `syntax error at or near "where"`); `keys list` shows
// a key's name; `members invite` prints a URL on the port the server serves, not on the CLI's own PORT.
import { describe, expect, it } from 'vitest';
import { cli, startServer, stop, tmpDir } from '../support/server-process.ts';

const TIMEOUT_MS = 300_000;

describe('naming an account with the CLI', () => {
  it('accounts update: no setting is a usage error; --name renames, alone or with other options; a bad name is refused', () => {
    const env = { COTEJO_DATA_DIR: tmpDir() };
    const created = JSON.parse(cli(['accounts', 'create', '--json'], env).stdout);
    const list = () => JSON.parse(cli(['accounts', 'list', '--json'], env).stdout).accounts as Array<{ id: string; name: string }>;
    expect(list()).toEqual([expect.objectContaining({ id: created.account, name: 'Default account' })]);

    const nothing = cli(['accounts', 'update', '--account', created.account], env);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('cotejo: accounts update needs at least one setting to change, such as --name "Mi Empresa"');
    expect(nothing.stderr).toContain('Usage:');
    expect(nothing.stderr).not.toMatch(/syntax error/i);

    const renamed = cli(['accounts', 'update', '--account', created.account, '--name', '  Mi   Empresa ', '--json'], env);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout).updated).toEqual(['name']);
    expect(list()[0].name).toBe('Mi Empresa');

    // With another option, --name is no longer ignored.
    const both = cli(['accounts', 'update', '--account', created.account, '--rate-limit', '20', '--name', 'Mi Empresa S.L.'], env);
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toBe(`Updated ${created.account}: name, rate_limit_per_second\n`);
    expect(list()[0].name).toBe('Mi Empresa S.L.');

    for (const bad of ['', '   ', 'x'.repeat(101), 'a\u0007b']) {
      const r = cli(['accounts', 'update', '--account', created.account, `--name=${bad}`], env);
      expect(r.code, JSON.stringify(bad)).toBe(1);
      expect(r.stderr).toBe('cotejo: --name must be 1 to 100 characters, without control characters\n');
    }
    expect(cli(['accounts', 'create', '--name', ''], env).code).toBe(1);
    expect(list()[0].name).toBe('Mi Empresa S.L.');
  }, TIMEOUT_MS);

  it('keys list shows each key name', () => {
    const env = { COTEJO_DATA_DIR: tmpDir() };
    const account = JSON.parse(cli(['accounts', 'create', '--json'], env).stdout).account as string;
    const key = JSON.parse(cli(['keys', 'create', '--account', account, '--name', 'CI server', '--json'], env).stdout);
    const text = cli(['keys', 'list', '--account', account], env);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines.find((l) => l.startsWith(key.id))).toMatch(/ {2}secret +test {2}ck_test_.{4}… {2}active {2}CI server$/);
    // The four keys the account was made with have no name: nothing is printed for it.
    expect(lines.filter((l) => l.endsWith('active'))).toHaveLength(4);
  }, TIMEOUT_MS);
});

describe('the first start names the account, and the CLI links to the server it runs', () => {
  it('COTEJO_ACCOUNT_NAME names it; the hosted page and the email say it, and say the new name after a rename', async () => {
    const dataDir = tmpDir();
    const env = { COTEJO_DATA_DIR: dataDir, PORT: '0', COTEJO_ACCOUNT_NAME: 'Acme Ibérica', COTEJO_LIVE_READERS: 'none' };
    const server = await startServer(env);
    const banner = server.out.join('');
    expect(banner).toMatch(/An account named "Acme Ibérica" was created \(acct_[0-9A-Z]{26}\)/);
    const res = await fetch(`${server.baseUrl}/v1/verification-links`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ documents: [{ key: 'id', label: 'DNI', expect: 'es_dni' }], locale: 'es', notify_email: 'persona@example.com' }),
    });
    const link = await res.json();
    expect(res.status, JSON.stringify(link)).toBe(201);
    const page = async (base: string) => (await fetch(`${base}/l/${link.url.split('/l/')[1]}`, { headers: { 'Accept-Language': 'es' } })).text();
    expect(await page(server.baseUrl)).toContain('Acme Ibérica te pide unos documentos');
    // The email to the person (the local outbox: no COTEJO_SMTP_URL) is sent by the worker.
    let subjects: string[] = [];
    for (let i = 0; i < 300 && subjects.length === 0; i++) {
      subjects = JSON.parse(cli(['outbox', 'list', '--json'], { COTEJO_DATA_DIR: dataDir }).stdout).emails.map((e: { subject: string }) => e.subject);
      if (subjects.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(subjects).toEqual(['Acme Ibérica te pide verificar tus documentos']);
    expect(await stop(server.child)).toBe(0);

    const account = JSON.parse(cli(['accounts', 'list', '--json'], { COTEJO_DATA_DIR: dataDir }).stdout).accounts[0];
    expect(account.name).toBe('Acme Ibérica');
    expect(cli(['accounts', 'update', '--account', account.id, '--name', 'Mi Empresa'], { COTEJO_DATA_DIR: dataDir }).code).toBe(0);
    const again = await startServer(env);
    expect(await page(again.baseUrl)).toContain('Mi Empresa te pide unos documentos');
    expect(await stop(again.child)).toBe(0);
  }, TIMEOUT_MS);

  it('members invite prints a URL on the port the server listens on (PORT=0 here), not the CLI default 8080', async () => {
    const dataDir = tmpDir();
    const server = await startServer({ COTEJO_DATA_DIR: dataDir, PORT: '0', COTEJO_LIVE_READERS: 'none' });
    expect(await stop(server.child)).toBe(0);
    const account = JSON.parse(cli(['accounts', 'list', '--json'], { COTEJO_DATA_DIR: dataDir }).stdout).accounts[0].id as string;
    const r = cli(['members', 'invite', '--account', account, '--email', 'boss@example.com', '--role', 'owner', '--json'], { COTEJO_DATA_DIR: dataDir, PORT: '' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const url = JSON.parse(r.stdout).url as string;
    expect(url).toMatch(new RegExp(`^http://localhost:${server.port}/dashboard/invitations/[A-Za-z0-9_-]{43}$`));
    // The server, started again on that port, opens it.
    const again = await startServer({ COTEJO_DATA_DIR: dataDir, PORT: String(server.port), COTEJO_LIVE_READERS: 'none' });
    const invitation = await fetch(url.replace('localhost', '127.0.0.1'), { headers: { 'Accept-Language': 'en' } });
    expect(invitation.status).toBe(200);
    expect(await invitation.text()).toContain('boss@example.com');
    expect(await stop(again.child)).toBe(0);

    // A COTEJO_BASE_URL in the CLI's environment that is not the server's: the server's wins, and the CLI says so.
    const other = cli(['members', 'invite', '--account', account, '--email', 'ann@example.com', '--role', 'member'], { COTEJO_DATA_DIR: dataDir, COTEJO_BASE_URL: 'https://elsewhere.example' });
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toMatch(new RegExp(`^http://localhost:${server.port}/dashboard/invitations/`));
    expect(other.stderr).toContain(`COTEJO_BASE_URL here is https://elsewhere.example, but the server serves http://localhost:${server.port}`);
  }, TIMEOUT_MS);
});
