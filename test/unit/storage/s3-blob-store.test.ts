/**
 * The S3-compatible blob store against a real S3 server on loopback (s3rver): round trips, a missing object, idempotent
 * deletes, the key prefix, refused keys, failed writes (no such bucket, wrong credentials, the server stopped), the
 * readiness ping; and the COTEJO_S3_* configuration.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../server/src/config.ts';
import { BlobStoreUnavailable } from '../../../server/src/storage/unavailable.ts';
import { S3BlobStore } from '../../../server/src/storage/s3-blob-store.ts';
import { startS3rver, TEST_BUCKET, type TestS3 } from '../../support/s3rver.ts';

describe('S3BlobStore on s3rver', () => {
  let s3: TestS3;
  let store: S3BlobStore;
  const stores: S3BlobStore[] = [];
  const make = (overrides: Parameters<TestS3['config']>[0] = {}) => {
    const s = new S3BlobStore(s3.config(overrides));
    stores.push(s);
    return s;
  };
  beforeAll(async () => {
    s3 = await startS3rver([TEST_BUCKET, 'other-bucket']);
    store = make();
  });
  afterAll(async () => {
    for (const s of stores) await s.destroy();
    await s3?.close();
  });

  it('puts, gets and overwrites bytes exactly (every byte value, and an empty object)', async () => {
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 31) % 256);
    await store.put('acc_1/an_1/original', bytes);
    expect(Buffer.from((await store.get('acc_1/an_1/original'))!).equals(Buffer.from(bytes))).toBe(true);
    await store.put('acc_1/an_1/original', new Uint8Array([7, 8, 9]));
    expect([...(await store.get('acc_1/an_1/original'))!]).toEqual([7, 8, 9]);
    await store.put('acc_1/an_1/empty', new Uint8Array(0));
    expect((await store.get('acc_1/an_1/empty'))!.length).toBe(0);
    expect(await s3.keys()).toEqual(expect.arrayContaining(['acc_1/an_1/original', 'acc_1/an_1/empty']));
  });

  it('a missing object is null, and deleting is idempotent', async () => {
    expect(await store.get('acc_1/never/original')).toBeNull();
    await store.put('acc_1/an_2/original', new Uint8Array([1]));
    await store.delete('acc_1/an_2/original');
    expect(await store.get('acc_1/an_2/original')).toBeNull();
    await store.delete('acc_1/an_2/original'); // again: not an error
    await store.delete('acc_1/never/original');
    expect(await s3.keys()).not.toContain('acc_1/an_2/original');
  });

  it('puts every key under the prefix; a store without it does not see them', async () => {
    const prefixed = make({ prefix: 'tenants/eu/' });
    await prefixed.put('acc_2/an_1/original', new Uint8Array([42]));
    expect(await s3.keys()).toContain('tenants/eu/acc_2/an_1/original');
    expect([...(await prefixed.get('acc_2/an_1/original'))!]).toEqual([42]);
    expect(await store.get('acc_2/an_1/original')).toBeNull();
    await prefixed.delete('acc_2/an_1/original');
    expect(await s3.keys()).not.toContain('tenants/eu/acc_2/an_1/original');
  });

  it('refuses unsafe keys before any request, as the local store does', async () => {
    for (const key of ['', '../x', 'a/../b', '/abs', '.hidden', 'a b', 'a?b']) {
      await expect(store.put(key, new Uint8Array([1])), key).rejects.toThrow(/unsafe blob key/);
      await expect(store.get(key), key).rejects.toThrow(/unsafe blob key/);
      await expect(store.delete(key), key).rejects.toThrow(/unsafe blob key/);
    }
  });

  it('a bucket that does not exist: writes and reads fail clearly (never "no blob"), and ping fails', async () => {
    const lost = make({ bucket: 'no-such-bucket' });
    const put = lost.put('acc_1/an_3/original', new Uint8Array([1]));
    await expect(put).rejects.toThrow(/^S3 put of "acc_1\/an_3\/original" failed \(s3:\/\/no-such-bucket\/ at http:\/\/127\.0\.0\.1:\d+\): NoSuchBucket: HTTP 404/);
    await expect(lost.get('acc_1/an_3/original')).rejects.toThrow(/NoSuchBucket/);
    await expect(lost.delete('acc_1/an_3/original')).rejects.toThrow(/NoSuchBucket/);
    await expect(lost.ping()).rejects.toThrow(/S3 HeadBucket failed/);
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('wrong credentials: the write fails and the message never holds the secret', async () => {
    const wrong = make({ credentials: { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'very-secret-value' } });
    const err = await wrong.put('acc_1/an_4/original', new Uint8Array([1])).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^S3 put of "acc_1\/an_4\/original" failed .*HTTP 403/);
    // A broken setup, not an outage: no retrying makes it work (a 500, not a 503).
    expect(err).not.toBeInstanceOf(BlobStoreUnavailable);
    expect((err as Error).message).not.toContain('very-secret-value');
    await expect(wrong.ping()).rejects.toThrow(/HeadBucket failed/);
  });

  it('the server stopped: a write fails with the connection error after its bounded retries; back up, it works again', async () => {
    const own = await startS3rver();
    const s = new S3BlobStore(own.config({ maxAttempts: 2, timeoutMs: 1_000 }));
    try {
      await s.put('acc_1/an_5/original', new Uint8Array([5]));
      await own.stop();
      const started = Date.now();
      await expect(s.put('acc_1/an_5/other', new Uint8Array([6]))).rejects.toThrow(/^S3 put of "acc_1\/an_5\/other" failed .*ECONNREFUSED/);
      // A passing failure, typed: requests answer 503 and jobs wait for it (#31).
      await expect(s.put('acc_1/an_5/other', new Uint8Array([6]))).rejects.toBeInstanceOf(BlobStoreUnavailable);
      await expect(s.get('acc_1/an_5/original')).rejects.toThrow(/ECONNREFUSED/);
      await expect(s.ping()).rejects.toThrow(/HeadBucket failed/);
      // Bounded: refused connections fail fast; generous for a loaded machine.
      expect(Date.now() - started).toBeLessThan(30_000);
      await own.restart();
      expect([...(await s.get('acc_1/an_5/original'))!]).toEqual([5]);
      await s.put('acc_1/an_5/other', new Uint8Array([6]));
    } finally {
      await s.destroy();
      await own.close();
    }
  });
});

describe('the AWS SDK is loaded lazily', () => {
  it('not by the services module nor by making the store: on the first S3 call only', () => {
    // A fresh Node process (vitest's own module runner bypasses Node's resolution) that records @aws-sdk/* lookups.
    const script = `
      import { registerHooks } from 'node:module';
      const seen = [];
      registerHooks({ resolve(spec, ctx, next) { if (spec.startsWith('@aws-sdk/')) seen.push(spec); return next(spec, ctx); } });
      await import(process.argv[1]);
      const { S3BlobStore } = await import(process.argv[2]);
      const store = new S3BlobStore({ bucket: 'b', endpoint: 'http://127.0.0.1:9', region: 'us-east-1', prefix: '', forcePathStyle: true,
        credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, timeoutMs: 1000, maxAttempts: 1 });
      const before = seen.length;
      await store.get('k').catch(() => {});
      await store.destroy();
      console.log(JSON.stringify({ before, after: seen.length }));`;
    const src = path.resolve(import.meta.dirname, '../../../server/src');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, path.join(src, 'services.ts'), path.join(src, 'storage/s3-blob-store.ts')], { encoding: 'utf8', timeout: 60_000 });
    const { before, after } = JSON.parse(out.trim().split('\n').pop()!);
    expect(before).toBe(0);
    expect(after).toBeGreaterThan(0);
  });
});

describe('COTEJO_S3_* configuration', () => {
  const problems = (env: NodeJS.ProcessEnv): string[] => {
    try {
      loadConfig(env);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  it('off without a bucket; with one, AWS defaults: the SDK credential chain, bounded time and tries', () => {
    expect(loadConfig({}).s3).toBeNull();
    expect(loadConfig({ COTEJO_S3_BUCKET: 'cotejo-files' }).s3).toEqual({
      bucket: 'cotejo-files', endpoint: undefined, region: 'us-east-1', prefix: '', forcePathStyle: false, credentials: null, timeoutMs: 10_000, maxAttempts: 3,
    });
    expect(loadConfig({ COTEJO_S3_BUCKET: 'cotejo-files', AWS_REGION: 'eu-west-3' }).s3!.region).toBe('eu-west-3');
  });

  it('reads every variable (a MinIO or Scaleway store)', () => {
    expect(
      loadConfig({
        COTEJO_S3_BUCKET: 'cotejo', COTEJO_S3_ENDPOINT: 'https://s3.fr-par.scw.cloud/', COTEJO_S3_REGION: 'fr-par', COTEJO_S3_PREFIX: '/prod/cotejo',
        COTEJO_S3_FORCE_PATH_STYLE: 'true', COTEJO_S3_ACCESS_KEY_ID: 'SCWKEY', COTEJO_S3_SECRET_ACCESS_KEY: 'secret', COTEJO_S3_TIMEOUT_MS: '5000',
        COTEJO_S3_MAX_ATTEMPTS: '5', AWS_REGION: 'eu-west-3',
      }).s3,
    ).toEqual({
      bucket: 'cotejo', endpoint: 'https://s3.fr-par.scw.cloud', region: 'fr-par', prefix: 'prod/cotejo/', forcePathStyle: true,
      credentials: { accessKeyId: 'SCWKEY', secretAccessKey: 'secret' }, timeoutMs: 5_000, maxAttempts: 5,
    });
  });

  it('reports every problem at once, naming the variable and never the secret', () => {
    expect(problems({ COTEJO_S3_ENDPOINT: 'http://minio:9000', COTEJO_S3_PREFIX: 'x' })).toEqual([
      'COTEJO_S3_ENDPOINT, COTEJO_S3_PREFIX are set but COTEJO_S3_BUCKET is not (set it to store files in S3, or unset them)',
    ]);
    const got = problems({
      COTEJO_S3_BUCKET: 'Bad_Bucket', COTEJO_S3_ENDPOINT: 'http://user:hunter2@minio:9000', COTEJO_S3_REGION: 'eu west', COTEJO_S3_PREFIX: 'a/../b',
      COTEJO_S3_FORCE_PATH_STYLE: 'maybe', COTEJO_S3_SECRET_ACCESS_KEY: 'hunter3', COTEJO_S3_TIMEOUT_MS: '10', COTEJO_S3_MAX_ATTEMPTS: '0',
    });
    expect(got).toEqual([
      'COTEJO_S3_BUCKET must be a bucket name of 3 to 63 lowercase letters, digits, dots and hyphens (got "Bad_Bucket")',
      'COTEJO_S3_ENDPOINT must not hold credentials (use COTEJO_S3_ACCESS_KEY_ID and COTEJO_S3_SECRET_ACCESS_KEY)',
      'COTEJO_S3_REGION must be a region name such as eu-west-3, fr-par or us-east-1 (got "eu west")',
      'COTEJO_S3_PREFIX may hold letters, digits, "_", "-", "." and "/" only, such as cotejo/production/ (got "a/../b")',
      'COTEJO_S3_FORCE_PATH_STYLE must be true or false (got "maybe")',
      'COTEJO_S3_SECRET_ACCESS_KEY is set but COTEJO_S3_ACCESS_KEY_ID is not',
      'COTEJO_S3_TIMEOUT_MS must be an integer from 500 to 600000 (got "10")',
      'COTEJO_S3_MAX_ATTEMPTS must be an integer from 1 to 10 (got "0")',
    ]);
    expect(got.join('\n')).not.toMatch(/hunter[23]/);
    expect(problems({ COTEJO_S3_BUCKET: 'ok-bucket', COTEJO_S3_ACCESS_KEY_ID: 'AKIA1', COTEJO_S3_ENDPOINT: 'ftp://x' })).toEqual([
      'COTEJO_S3_ENDPOINT must be an http(s) URL such as https://s3.fr-par.scw.cloud (got "ftp://x")',
      'COTEJO_S3_ACCESS_KEY_ID is set ("AKIA1") but COTEJO_S3_SECRET_ACCESS_KEY is not',
    ]);
  });
});
