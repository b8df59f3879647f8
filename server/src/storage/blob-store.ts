import fs from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import path from 'node:path';
import { BlobStoreUnavailable } from './unavailable.ts';

/** Where originals and exports live. Local directory by default; an S3-compatible store can take its place. */
export interface BlobStore {
  /**
   * `canWait`: the work behind it can wait for a store that is away (an async analysis, a batch document): a store
   * that spools keeps the bytes meanwhile instead of throwing BlobStoreUnavailable (storage/spooling-blob-store.ts).
   */
  put(key: string, bytes: Uint8Array, opts?: { canWait?: boolean }): Promise<void>;
  /** The bytes, or null when the blob does not exist (never stored, or deleted). */
  get(key: string): Promise<Uint8Array | null>;
  /** Idempotent: deleting a missing blob is not an error. */
  delete(key: string): Promise<void>;
  /** Readiness (GET /readyz): throws when the store cannot be reached. Only remote stores have it. */
  ping?(): Promise<void>;
  /**
   * The keys of blobs last written before `before` (the retention sweep looks for orphans among them). Only the local
   * directory has it; a bucket's orphans are left to its lifecycle rules (docs/deployment.md, "Retention").
   */
  keysWrittenBefore?(before: Date): AsyncIterable<string>;
  /** Removes the directories left empty under the store's root (never the root itself); returns how many. */
  removeEmptyDirectories?(): Promise<number>;
  /** Moves blobs kept while the store was away to the store (the worker calls it); returns how many. */
  flushSpool?(): Promise<number>;
  /** Releases the store's connections (shutdown). Only remote stores have it. */
  destroy?(): Promise<void>;
}

/** A full or failing disk under the data dir: the store is unavailable for now (503), not broken. */
const DISK_CODES = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS']);
const diskFailure = (err: unknown, op: string, key: string): unknown =>
  DISK_CODES.has((err as NodeJS.ErrnoException)?.code ?? '') ? new BlobStoreUnavailable(`local ${op} of "${key}" failed: ${(err as Error).message}`, { cause: err }) : err;

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
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    try {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(tmp, bytes);
      await fs.rename(tmp, file); // readers never see half a file
    } catch (err) {
      await fs.rm(tmp, { force: true }).catch(() => undefined); // a full disk leaves no half file behind
      throw diskFailure(err, 'put', key);
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await fs.readFile(this.file(key)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw diskFailure(err, 'get', key);
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.file(key), { force: true });
  }

  async *keysWrittenBefore(before: Date): AsyncIterable<string> {
    const walk = async function* (dir: string, prefix: string): AsyncGenerator<string> {
      let entries: Dirent[];
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      for (const e of entries) {
        const full = path.join(dir, e.name);
        const key = prefix === '' ? e.name : `${prefix}/${e.name}`;
        if (e.isDirectory()) yield* walk(full, key);
        else if (e.isFile()) {
          const stat = await fs.stat(full).catch(() => null);
          if (stat && stat.mtimeMs < before.getTime()) yield key;
        }
      }
    };
    yield* walk(this.root, '');
  }

  async removeEmptyDirectories(): Promise<number> {
    // Depth first: a directory whose only content was empty directories is empty once they are gone.
    const prune = async (dir: string): Promise<{ removed: number; empty: boolean }> => {
      let entries: Dirent[];
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { removed: 0, empty: false };
        throw err;
      }
      let removed = 0;
      let left = entries.length;
      for (const e of entries) {
        if (!e.isDirectory()) continue;
        const sub = await prune(path.join(dir, e.name));
        removed += sub.removed;
        if (sub.empty) left--;
      }
      if (left > 0 || dir === this.root) return { removed, empty: false };
      // rmdir refuses a directory that a put filled meanwhile: then it simply stays.
      const gone = await fs.rmdir(dir).then(() => true, () => false);
      return { removed: removed + (gone ? 1 : 0), empty: gone };
    };
    return (await prune(this.root)).removed;
  }
}
