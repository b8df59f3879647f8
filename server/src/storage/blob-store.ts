import fs from 'node:fs/promises';
import path from 'node:path';

/** Where originals and exports live. Local directory by default; an S3-compatible store can take its place. */
export interface BlobStore {
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes, or null when the blob does not exist (never stored, or deleted). */
  get(key: string): Promise<Uint8Array | null>;
  /** Idempotent: deleting a missing blob is not an error. */
  delete(key: string): Promise<void>;
  /** Readiness (GET /readyz): throws when the store cannot be reached. Only remote stores have it. */
  ping?(): Promise<void>;
}

const SAFE_KEY = /^[A-Za-z0-9_][A-Za-z0-9_./-]*$/;

/** Keys are made by the app (`acc_…/an_…/original`); anything else is a bug, refused before it reaches a store. */
export function assertSafeBlobKey(key: string): void {
  if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`unsafe blob key ${JSON.stringify(key)}`);
}

export class LocalBlobStore implements BlobStore {
  private readonly root: string;
  constructor(root: string) {
    this.root = path.resolve(root);
  }

  private file(key: string): string {
    assertSafeBlobKey(key);
    return path.join(this.root, key);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const file = this.file(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    await fs.writeFile(tmp, bytes);
    await fs.rename(tmp, file); // readers never see half a file
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await fs.readFile(this.file(key)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.file(key), { force: true });
  }
}
