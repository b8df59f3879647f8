import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';
import { Mutex } from './mutex.ts';

/**
 * Kysely dialect for PGlite. PGlite is a single connection: Kysely's BEGIN ... COMMIT would otherwise
 * interleave with statements of other requests, which would then run (and roll back) inside a foreign
 * transaction. The driver hands out its one connection under a mutex, from acquire to release, so a
 * transaction owns the database until it ends. `exclusive()` lets other clients of the same PGlite
 * (the job queue) take the same lock.
 */
export class PGliteDialect implements Dialect {
  readonly driver: PGliteDriver;
  constructor(pglite: PGlite) {
    this.driver = new PGliteDriver(pglite);
  }
  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return this.driver;
  }
  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}

/**
 * PGlite runs each statement synchronously on this thread and resolves its promise in a microtask, so a chain of
 * statements (a hundred short transactions awaiting one another) never lets the event loop turn: timers, sockets and
 * other requests wait for the whole chain. A burst of statements therefore gives the loop one turn every
 * YIELD_EVERY_MS: the first statement of a burst schedules a macrotask that ends the burst when the loop turns; a
 * statement that finds the burst older than that waits for that turn first.
 */
const YIELD_EVERY_MS = 15;
let burstStart: number | undefined;
const endBurst = (): void => {
  burstStart = undefined;
};

async function yieldIfBusy(): Promise<void> {
  const now = performance.now();
  if (burstStart === undefined) {
    burstStart = now;
    setImmediate(endBurst);
  } else if (now - burstStart > YIELD_EVERY_MS) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (burstStart === undefined) {
      burstStart = performance.now();
      setImmediate(endBurst);
    }
  }
}

class PGliteConnection implements DatabaseConnection {
  private readonly pglite: PGlite;
  constructor(pglite: PGlite) {
    this.pglite = pglite;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    await yieldIfBusy();
    const result = await this.pglite.query<R>(compiledQuery.sql, [...compiledQuery.parameters]);
    const kind = compiledQuery.query.kind;
    const isWrite = kind === 'InsertQueryNode' || kind === 'UpdateQueryNode' || kind === 'DeleteQueryNode' || kind === 'MergeQueryNode';
    return {
      rows: result.rows ?? [],
      ...(isWrite ? { numAffectedRows: BigInt(result.affectedRows ?? 0) } : {}),
    };
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const result = await this.executeQuery<R>(compiledQuery);
    for (const row of result.rows) yield { rows: [row] };
  }
}

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

export class PGliteDriver implements Driver {
  private readonly mutex = new Mutex();
  private readonly connection: PGliteConnection;
  private unlock: (() => void) | undefined;

  readonly pglite: PGlite;
  constructor(pglite: PGlite) {
    this.pglite = pglite;
    this.connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {
    await this.pglite.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    this.unlock = await this.mutex.lock();
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let sql = 'begin';
    if (settings.isolationLevel || settings.accessMode) {
      sql = 'start transaction';
      if (settings.isolationLevel) sql += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode) sql += ` ${settings.accessMode}`;
    }
    await connection.executeQuery(CompiledQuery.raw(sql));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdent(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${quoteIdent(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${quoteIdent(name)}`));
  }

  async releaseConnection(): Promise<void> {
    const unlock = this.unlock;
    this.unlock = undefined;
    unlock?.();
  }

  /** Runs `fn` with the PGlite instance while holding the same lock Kysely's connection uses. */
  exclusive<T>(fn: (pglite: PGlite) => Promise<T>): Promise<T> {
    return this.mutex.run(() => fn(this.pglite));
  }

  async destroy(): Promise<void> {
    await this.mutex.run(() => this.pglite.close());
  }
}
