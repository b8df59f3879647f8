// Originals and exports in an S3-compatible object store (AWS S3, MinIO, Scaleway, OVHcloud, Ceph RGW...), so that
// several Cotejo processes behind a load balancer share them (docs/deployment.md). Selected by COTEJO_S3_BUCKET
// (server/src/config.ts); the local directory stays the embedded default.
//
// The AWS SDK is loaded on first use, not at start: it is large, and a process on the local store never pays for it
// (start-up time and idle memory are measured, issue #13).
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../config.ts';
import { assertSafeBlobKey, type BlobStore } from './blob-store.ts';
import { BlobStoreUnavailable } from './unavailable.ts';

type Sdk = typeof import('@aws-sdk/client-s3');

/** An S3 error as the SDK throws it: a name (the S3 code, or a Node network error) and the HTTP status if any. */
interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

export class S3BlobStore implements BlobStore {
  private readonly config: S3Config;
  private loading: Promise<{ sdk: Sdk; client: S3Client }> | null = null;

  constructor(config: S3Config) {
    this.config = config;
  }

  /** Where errors and logs say the store is: never the credentials. */
  get display(): string {
    return `s3://${this.config.bucket}/${this.config.prefix}${this.config.endpoint ? ` at ${this.config.endpoint}` : ''}`;
  }

  private client(): Promise<{ sdk: Sdk; client: S3Client }> {
    this.loading ??= import('@aws-sdk/client-s3').then(
      (sdk) => {
        const c = this.config;
        const client = new sdk.S3Client({
          region: c.region,
          endpoint: c.endpoint,
          forcePathStyle: c.forcePathStyle,
          // null: the SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, an instance role...).
          credentials: c.credentials ?? undefined,
          // An AWS bucket in another region than the configured one still works (one redirect, then the right region).
          followRegionRedirects: true,
          // Attempts include the first one; the SDK backs off between them (throttling, 5xx, lost connections).
          maxAttempts: c.maxAttempts,
          // Per attempt: time to connect, then the longest silence of the socket. A hung store costs at most
          // maxAttempts × timeoutMs (plus back-off), never a request held forever.
          requestHandler: { connectionTimeout: Math.min(c.timeoutMs, 5_000), requestTimeout: c.timeoutMs },
          // Checksums only where S3 requires them: the SDK's newer default (CRC32 on every upload and download)
          // is refused or mis-handled by several S3-compatible stores. TLS and Content-MD5-free PUTs are what they all take.
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
        });
        return { sdk, client };
      },
      (err) => {
        this.loading = null; // a failed import may be retried by the next call
        throw err;
      },
    );
    return this.loading;
  }

  private objectKey(key: string): string {
    assertSafeBlobKey(key);
    return this.config.prefix + key;
  }

  /**
   * A clear error naming the operation, the key and the store, with the SDK's error as its cause. A store that does not
   * answer, times out or answers 5xx is a BlobStoreUnavailable (503 and a retry later); a 4xx (403, no such bucket) is a
   * broken setup, a plain Error.
   */
  private failure(op: string, key: string | null, err: unknown): Error {
    const e = err as SdkError;
    const status = e.$metadata?.httpStatusCode;
    const why = [e.name && e.name !== 'Error' ? e.name : e.code, status ? `HTTP ${status}` : null, e.message].filter(Boolean).join(': ');
    const message = `S3 ${op}${key !== null ? ` of "${key}"` : ''} failed (${this.display}): ${why || String(err)}`;
    const passing = status === undefined || status >= 500 || status === 408 || status === 429;
    return passing ? new BlobStoreUnavailable(message, { cause: err }) : new Error(message, { cause: err });
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const Key = this.objectKey(key);
    const { sdk, client } = await this.client();
    try {
      // A PUT is atomic in S3: readers see the old object or the whole new one, never half.
      await client.send(new sdk.PutObjectCommand({ Bucket: this.config.bucket, Key, Body: bytes, ContentLength: bytes.length }));
    } catch (err) {
      throw this.failure('put', key, err);
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    const Key = this.objectKey(key);
    const { sdk, client } = await this.client();
    try {
      const res = await client.send(new sdk.GetObjectCommand({ Bucket: this.config.bucket, Key }));
      if (!res.Body) return new Uint8Array(0);
      return await res.Body.transformToByteArray();
    } catch (err) {
      if (isMissingObject(err)) return null;
      throw this.failure('get', key, err);
    }
  }

  async delete(key: string): Promise<void> {
    const Key = this.objectKey(key);
    const { sdk, client } = await this.client();
    try {
      await client.send(new sdk.DeleteObjectCommand({ Bucket: this.config.bucket, Key }));
    } catch (err) {
      // S3 answers 204 for a missing key; some compatible stores answer 404 NoSuchKey. Both mean "gone".
      if (isMissingObject(err)) return;
      throw this.failure('delete', key, err);
    }
  }

  /** HeadBucket within timeoutMs in all (retries included): the bucket exists and these credentials may use it. */
  async ping(): Promise<void> {
    const { sdk, client } = await this.client();
    try {
      await client.send(new sdk.HeadBucketCommand({ Bucket: this.config.bucket }), { abortSignal: AbortSignal.timeout(this.config.timeoutMs) });
    } catch (err) {
      throw this.failure('HeadBucket', null, err);
    }
  }

  /** Closes the client's pooled connections (tests, shutdown). */
  async destroy(): Promise<void> {
    const loading = this.loading;
    this.loading = null;
    if (loading) (await loading.catch(() => null))?.client.destroy();
  }
}

/** NoSuchKey, or a bare 404 for the object. A missing bucket (NoSuchBucket) is a broken setup, never "no blob". */
function isMissingObject(err: unknown): boolean {
  const e = err as SdkError;
  if (e.name === 'NoSuchKey') return true;
  return e.$metadata?.httpStatusCode === 404 && e.name !== 'NoSuchBucket';
}
