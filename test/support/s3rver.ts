// A real S3-compatible server on loopback for tests (the `s3rver` package): its own temporary directory, port 0,
// stopped (and restarted on the same port) at will. It accepts the access key S3RVER with the secret S3RVER.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { S3Config } from '../../server/src/config.ts';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverCtor = new (options: Record<string, unknown>) => S3rverInstance;

// s3rver ships no types; require keeps the compiler out of it.
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverCtor;

export interface TestS3 {
  endpoint: string;
  /** An S3 configuration for this server (path style, its credentials), for a store or an app. */
  config(overrides?: Partial<S3Config>): S3Config;
  /** Every key in the bucket (after any prefix), through the S3 API itself. */
  keys(bucket?: string): Promise<string[]>;
  /** Closes the server and every open connection: clients now get ECONNREFUSED. */
  stop(): Promise<void>;
  /** Listens again on the same port, with the same objects. */
  restart(): Promise<void>;
  /** Stops it (if running) and removes its directory. */
  close(): Promise<void>;
}

export const TEST_BUCKET = 'cotejo-test';

export async function startS3rver(buckets: string[] = [TEST_BUCKET]): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-s3rver-'));
  let port = 0;
  let server: S3rverInstance | null = null;
  const start = async () => {
    server = new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
    port = (await server.run()).port;
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    const s = server;
    server = null;
    if (!s) return;
    s.httpServer?.closeAllConnections();
    await s.close();
  };
  const config = (overrides: Partial<S3Config> = {}): S3Config => ({
    bucket: TEST_BUCKET,
    endpoint,
    region: 'us-east-1',
    prefix: '',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    // Short, so that a stopped server fails a test in seconds; two tries, as the retry path is part of what is tested.
    timeoutMs: 3_000,
    maxAttempts: 2,
    ...overrides,
  });
  return {
    endpoint,
    config,
    async keys(bucket = TEST_BUCKET) {
      const { S3Client, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
      const c = config({ bucket });
      const client = new S3Client({ endpoint: c.endpoint, region: c.region, forcePathStyle: true, credentials: c.credentials! });
      try {
        const out: string[] = [];
        let token: string | undefined;
        do {
          const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
          for (const o of page.Contents ?? []) out.push(o.Key!);
          token = page.NextContinuationToken;
        } while (token);
        return out.sort();
      } finally {
        client.destroy();
      }
    },
    stop,
    restart: async () => {
      if (!server) await start();
    },
    close: async () => {
      await stop();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
