/**
 * The operator's CLI for human review (docs/reviews.md): `accounts update --review-max-days N
 * --review-retention-hours N` and `audit list [--account ...] [--analysis ...] [--json]`, run as the real command on an
 * embedded database. The audit records are written between two CLI runs by opening the same data directory (the
 * API tests in test/api/reviews.test.ts make them through real decisions).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findAccount } from '../../server/src/db/accounts.ts';
import { migrateToLatest, openDatabase } from '../../server/src/db/database.ts';
import { insertAuditRecord } from '../../server/src/db/reviews.ts';
import { newId } from '../../server/src/ids.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NODE = process.execPath;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-audit-cli-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]) {
  const r = spawnSync(NODE, ['server/src/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', COTEJO_DATA_DIR: dir }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function withDb<T>(fn: (db: Awaited<ReturnType<typeof openDatabase>>['db']) => Promise<T>): Promise<T> {
  const database = await openDatabase({ dataDir: dir });
  try {
    await migrateToLatest(database.db, database.schema);
    return await fn(database.db);
  } finally {
    await database.close();
  }
}

const state = (review_status: 'pending' | 'approved' | 'rejected', final_status: 'valid' | 'invalid' | null) => ({
  review_status,
  final_status,
  verdict_status: 'review' as const,
  storage_mode: 'review',
  file_kept: true,
  storage_expires_at: null,
});

describe('audit and review retention through the CLI', { timeout: 300_000 }, () => {
  let account = '';
  let other = '';

  it('accounts update sets the review retention defaults (30 days and 24 hours until then), and refuses values out of range', async () => {
    const created = cli(['accounts', 'create', '--json']);
    expect(created.code, created.stderr).toBe(0);
    account = JSON.parse(created.stdout).account;
    other = JSON.parse(cli(['accounts', 'create', '--json']).stdout).account;
    expect(await withDb(async (db) => (await findAccount(db, account))!)).toMatchObject({ review_max_days: 30, review_retention_hours_after_decision: 24 });

    const updated = cli(['accounts', 'update', '--account', account, '--review-max-days', '10', '--review-retention-hours', '0', '--json']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toEqual({ account, updated: ['review_max_days', 'review_retention_hours_after_decision'] });
    expect(await withDb(async (db) => (await findAccount(db, account))!)).toMatchObject({ review_max_days: 10, review_retention_hours_after_decision: 0 });

    for (const [flag, value] of [['--review-max-days', '0'], ['--review-max-days', '91'], ['--review-retention-hours', '721'], ['--review-retention-hours', '-1'], ['--review-max-days', 'many']]) {
      // `--flag=value`: a value that starts with '-' would otherwise be read as an option.
      const r = cli(['accounts', 'update', '--account', account, `${flag}=${value}`]);
      expect(r.code, `${flag} ${value}`).toBe(1);
      expect(r.stderr).toContain(flag);
    }
    expect(await withDb(async (db) => (await findAccount(db, account))!)).toMatchObject({ review_max_days: 10, review_retention_hours_after_decision: 0 });
  });

  it('audit list: newest first, by account or analysis, as text and JSON', async () => {
    expect(cli(['audit', 'list']).stdout).toContain('No audit records.');
    const t0 = Date.parse('2026-03-01T10:00:00Z');
    const records = [
      { account_id: account, analysis_id: 'an_01JAAAAAAAAAAAAAAAAAAAAAAA', decision: 'approve' as const, at: t0, reason: 'Legible' },
      { account_id: account, analysis_id: 'an_01JBBBBBBBBBBBBBBBBBBBBBBB', decision: 'reject' as const, at: t0 + 60_000, reason: null },
      { account_id: other, analysis_id: 'an_01JCCCCCCCCCCCCCCCCCCCCCCC', decision: 'approve' as const, at: t0 + 120_000, reason: null },
    ];
    await withDb(async (db) => {
      for (const r of records) {
        await insertAuditRecord(db, {
          id: newId('audit_record', r.at),
          account_id: r.account_id,
          livemode: false,
          analysis_id: r.analysis_id,
          action: r.decision === 'approve' ? 'review.approved' : 'review.rejected',
          decision: r.decision,
          actor: 'key_01JKEYKEYKEYKEYKEYKEYKEYKE',
          reason: r.reason,
          previous_state: state('pending', null),
          new_state: state(r.decision === 'approve' ? 'approved' : 'rejected', r.decision === 'approve' ? 'valid' : 'invalid'),
          created_at: new Date(r.at),
        });
      }
    });

    const all = cli(['audit', 'list', '--json']);
    expect(all.code, all.stderr).toBe(0);
    const parsed = JSON.parse(all.stdout).audit_records;
    expect(parsed.map((r: { analysis_id: string }) => r.analysis_id)).toEqual(records.map((r) => r.analysis_id).reverse());
    expect(parsed[2]).toMatchObject({
      account_id: account,
      livemode: false,
      action: 'review.approved',
      decision: 'approve',
      actor: 'key_01JKEYKEYKEYKEYKEYKEYKEYKE',
      reason: 'Legible',
      previous_state: { review_status: 'pending', final_status: null },
      new_state: { review_status: 'approved', final_status: 'valid' },
      created_at: new Date(t0).toISOString(),
    });

    const mine = JSON.parse(cli(['audit', 'list', '--account', account, '--json']).stdout).audit_records;
    expect(mine.map((r: { analysis_id: string }) => r.analysis_id)).toEqual([records[1].analysis_id, records[0].analysis_id]);
    const one = JSON.parse(cli(['audit', 'list', '--analysis', records[2].analysis_id, '--json']).stdout).audit_records;
    expect(one).toHaveLength(1);
    expect(JSON.parse(cli(['audit', 'list', '--limit', '1', '--json']).stdout).audit_records).toHaveLength(1);

    const text = cli(['audit', 'list', '--account', account]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(records[1].analysis_id);
    expect(lines[0]).toContain('review.rejected  by key_01JKEYKEYKEYKEYKEYKEYKEYKE  pending -> rejected (final invalid)');
    expect(lines[1]).toContain('reason: "Legible"');

    const unknown = cli(['audit', 'list', '--account', 'acct_01JZZZZZZZZZZZZZZZZZZZZZZZ']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no account');
  });
});
