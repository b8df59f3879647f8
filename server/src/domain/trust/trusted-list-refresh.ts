/**
 * EU trusted lists at run time (#20, docs/pdf-signatures.md "Trusted lists"): what the process trusts is the newest
 * verified copy of each list among
 * - the seed directories: one shipped with the product (`server/trust/trusted-lists/`, absent today) and the
 *   operator's `COTEJO_TRUSTED_LISTS_DIR` (lotl.xml, lotl-signers/*.pem, <territory>.xml);
 * - the database (table `trusted_lists`), where refreshes store what they fetched, shared by every process;
 * - a refresh: the LOTL fetched from `COTEJO_TRUSTED_LISTS_URL`, then each national list from the XML location the
 *   LOTL gives, every `COTEJO_TRUSTED_LISTS_REFRESH`, by one process per interval however many share the database.
 * Every copy is verified when it is read, whatever it came from (validators/pdf-signature/trusted-lists.ts): the LOTL
 * against the pinned LOTL signers of the seed directories, each national list against the certificates that LOTL
 * announces for it. Nothing goes back: a copy with a lower sequence number than the one held is refused. The
 * anchors in use are replaced in one assignment (`trustStore.listed = ...`).
 * When the Commission rotates the LOTL signing certificates, a fetched LOTL no longer verifies with the pins: the
 * refresh then follows the pivot LOTLs the new LOTL names, oldest first, each verified with what the step before it
 * trusted (`followPivots`), and stores that chain (table `trusted_list_pivots`) so every process, at start and on its
 * sweep, rebuilds the same LOTL signers from its own pins without fetching the pivots again.
 */
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import {
  claimTrustedListRefresh,
  finishTrustedListRefresh,
  saveTrustedList,
  saveTrustedListPivots,
  trustedListPivotRows,
  trustedListPivotVersions,
  trustedListRows,
  trustedListVersions,
} from '../../db/trusted-lists.ts';
import { WORKER_ID } from '../../jobs/queue.ts';
import type { TrustStore } from '../../validators/pdf-signature/index.ts';
import {
  anchorsOfSet,
  chooseLists,
  EMPTY_LIST_SET,
  followPivots,
  lotlPivotUrls,
  readLotlSigners,
  sha256Hex,
  type HeldList,
  type FollowedPivot,
  type ListCopy,
  type PivotCopy,
  type TrustedListSet,
} from '../../validators/pdf-signature/trusted-lists.ts';
import { chainKey, formatInterval, fromRow, readSeedDir, rowOf, verifiesWith } from './list-copies.ts';
import { fetchList, ListFetchError, type ListFetchOptions } from './list-fetch.ts';

export { fetchList, ListFetchError };

/** The seed a release may ship (a dated snapshot with its LOTL signer certificates); absent today. */
export const SHIPPED_TRUSTED_LISTS_DIR = path.resolve(import.meta.dirname, '../../../trust/trusted-lists');
/** At most this many pivot LOTLs are fetched for one rotation (the Commission lists a handful; a LOTL is unverified then). */
const MAX_PIVOTS = 20;
/** After a refresh whose LOTL could not be had: the next try, at most this far off. */
const RETRY_AFTER_FAILURE_MS = 3_600_000;

export interface TrustedListsDeps {
  db: Kysely<DB>;
  clock: Clock;
  config: Config;
  logger: Logger;
  /** Whose `listed` anchors this replaces. */
  trustStore: TrustStore;
}

export interface TrustedListsOptions extends Partial<Pick<ListFetchOptions, 'timeoutMs' | 'maxBytes' | 'lookup'>> {
  /** The shipped seed directory (tests point it elsewhere). */
  shippedDir?: string;
}

export type RefreshOutcome = 'off' | 'not_due' | 'refreshed' | 'failed';

/**
 * The trusted lists of one process: loads them at start, refreshes them (when this process takes the refresh), and
 * picks up what another process stored. Build it with `TrustedLists.open`.
 */
export class TrustedLists {
  private set: TrustedListSet = EMPTY_LIST_SET;
  private pins: Uint8Array[] = [];
  /**
   * The certificates the LOTL is verified with: the pins, or, after a signer rotation, those the last pivot of the
   * chain followed from the pins announces.
   */
  private lotlSigners: Uint8Array[] = [];
  /** The pivot chain that gave `lotlSigners` (empty: the pins themselves). */
  private chain: FollowedPivot[] = [];
  /** The stored chain last read (taken or refused): not read again until it changes. */
  private chainSeen = '';
  /** Who takes the refresh: this process, and this instance within it (tests run several in one process). */
  private readonly owner = `${WORKER_ID}:tl-${Math.random().toString(36).slice(2, 8)}`;
  /** Database rows (territory:sha256:fetched_at) read once and not taken: not read again every sweep. */
  private readonly passedOver = new Set<string>();
  /** Aborted when the loop stops: a download in progress ends at once. */
  private readonly stopping = new AbortController();
  /** One refresh or pick-up at a time in this process. */
  private busy: Promise<unknown> = Promise.resolve();

  private readonly deps: TrustedListsDeps;
  private readonly opts: TrustedListsOptions;

  private constructor(deps: TrustedListsDeps, opts: TrustedListsOptions) {
    this.deps = deps;
    this.opts = opts;
  }

  /** Loads the newest verified copy per territory from the seed directories and the database, and publishes them. */
  static async open(deps: TrustedListsDeps, opts: TrustedListsOptions = {}): Promise<TrustedLists> {
    const tl = new TrustedLists(deps, opts);
    await tl.load();
    return tl;
  }

  /** The lists in use (for tests and diagnostics). */
  get current(): TrustedListSet {
    return this.set;
  }

  /**
   * What PDF signature trust is configured, in one plain sentence for the start's banner: the roots of
   * COTEJO_TRUST_DIR (`roots` of them) and the EU trusted lists in use.
   */
  describe(roots: number): string {
    const { lotl, lists } = this.set;
    const dir = this.deps.config.trustDir;
    const own = roots > 0 ? `${roots === 1 ? 'the root certificate' : `one of the ${roots} root certificates`} in ${dir}` : null;
    const every = this.deps.config.trustedListsRefreshMs;
    const eu = lotl
      ? `the EU trusted lists (${lists.size} national list${lists.size === 1 ? '' : 's'}${this.refreshes && every !== null ? `, fetched again every ${formatInterval(every)}` : ''})`
      : null;
    if (own && eu) return `a signer is trusted when its certificate chains to ${eu} or to ${own}.`;
    if (eu || own) return `a signer is trusted when its certificate chains to ${eu ?? own}.`;
    return 'no trust anchors are configured, so every signer is reported as untrusted (COTEJO_TRUST_DIR, COTEJO_TRUSTED_LISTS_DIR: docs/pdf-signatures.md).';
  }

  /** Whether this process may refresh: an interval is set and there is a pinned LOTL signer to verify with. */
  get refreshes(): boolean {
    return this.deps.config.trustedListsRefreshMs !== null && this.pins.length > 0;
  }

  private seedDirs(): string[] {
    return [this.opts.shippedDir ?? SHIPPED_TRUSTED_LISTS_DIR, ...(this.deps.config.trustedListsDir ? [this.deps.config.trustedListsDir] : [])];
  }

  private warn = (msg: string): void => this.deps.logger.warn(msg);

  private publish(next: TrustedListSet): void {
    this.set = next;
    this.deps.trustStore.listed = anchorsOfSet(next);
  }

  private choose(candidates: ListCopy[], held: TrustedListSet): TrustedListSet {
    return chooseLists(this.lotlSigners, candidates, held, { now: this.deps.clock.now(), territories: this.deps.config.trustedListsTerritories, warn: this.warn });
  }

  private async load(): Promise<void> {
    const { config, logger, db } = this.deps;
    const seeds: ListCopy[] = [];
    for (const dir of this.seedDirs()) {
      this.pins.push(...(await readLotlSigners(dir)));
      seeds.push(...(await readSeedDir(dir)));
    }
    this.lotlSigners = this.pins;
    await this.takeStoredChain();
    const stored = (await trustedListRows(db)).map(fromRow);
    const next = this.choose([...seeds, ...stored], EMPTY_LIST_SET);
    this.publish(next);
    const lists = [...next.lists.values()];
    if (next.lotl) {
      logger.info(
        { territories: lists.map((l) => l.list.territory), lotl_sequence: next.lotl.list.sequence },
        `trusted lists: LOTL ${next.lotl.list.sequence ?? '?'} and ${lists.length} national list(s) in use`,
      );
    } else if (seeds.length + stored.length > 0) {
      logger.warn('trusted lists: no LOTL verified with the pinned signers; no EU trusted list anchors');
    }
    if (config.trustedListsRefreshMs === null) logger.info('trusted lists: refresh is off (COTEJO_TRUSTED_LISTS_REFRESH=off)');
    else if (this.pins.length === 0) {
      // The default (nothing configured): the start's banner says what PDF signature trust there is, for people.
      logger.debug('trusted lists: refresh is off: no pinned LOTL signer certificate (COTEJO_TRUSTED_LISTS_DIR/lotl-signers/), so nothing fetched could be verified');
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.busy.then(fn, fn);
    this.busy = run.catch(() => undefined);
    return run;
  }

  /**
   * Takes the refresh if it is due (one process per interval across the database) and runs it: the LOTL from
   * COTEJO_TRUSTED_LISTS_URL, then each wanted territory's list from the LOTL's XML location. What verifies and is
   * not older than what is held replaces it (in this process and in the database); a list that fails keeps the
   * previous copy with one warning; a LOTL that fails keeps everything as it was.
   */
  refresh(): Promise<RefreshOutcome> {
    return this.serial(async () => {
      const { config, db, clock } = this.deps;
      if (!this.refreshes) return 'off';
      const intervalMs = config.trustedListsRefreshMs!;
      if (!(await claimTrustedListRefresh(db, clock.now(), intervalMs, this.owner))) return 'not_due';
      const fetchOpts: ListFetchOptions = {
        allowPrivate: config.allowPrivateUrls,
        timeoutMs: this.opts.timeoutMs,
        maxBytes: this.opts.maxBytes,
        lookup: this.opts.lookup,
        signal: this.stopping.signal,
      };

      const held = this.set;
      let lotlCopy: ListCopy;
      try {
        const got = await fetchList(config.trustedListsUrl, fetchOpts);
        lotlCopy = { territory: 'EU', bytes: got.bytes, kind: 'download', origin: config.trustedListsUrl, fetchedAt: clock.now(), url: got.url };
      } catch (e) {
        return this.failed(`LOTL not fetched from ${config.trustedListsUrl}: ${(e as Error).message}; the lists held stay in use`, intervalMs);
      }
      // A LOTL that the signers in use do not verify may have been signed after a rotation: follow its pivots.
      let signers = this.lotlSigners;
      let chain: FollowedPivot[] | null = null;
      // (The LOTL's own address is not a pivot, should it be listed there.)
      const pivotUrls = lotlPivotUrls(lotlCopy.bytes).filter((u) => u !== config.trustedListsUrl && u !== lotlCopy.url);
      if (pivotUrls.length > 0 && !verifiesWith(lotlCopy.bytes, signers, clock.now())) {
        const rotation = await this.followRotation(pivotUrls, lotlCopy.bytes, fetchOpts);
        if ('error' in rotation) return this.failed(`LOTL from ${config.trustedListsUrl} not taken: ${rotation.error}; the lists held stay in use`, intervalMs);
        ({ signers, chain } = rotation);
      }
      // The LOTL alone first (the national lists held are judged once, below, against the LOTL taken).
      const withLotl = chooseLists(signers, [lotlCopy], { lotl: held.lotl, lists: new Map() }, { now: clock.now(), territories: config.trustedListsTerritories, warn: this.warn });
      if (!withLotl.lotl || withLotl.lotl.sha256 !== sha256Hex(lotlCopy.bytes)) {
        return this.failed(`LOTL from ${config.trustedListsUrl} not taken; the lists held stay in use`, intervalMs, false);
      }
      if (chain) {
        // The rotation is taken: the chain is stored (every process rebuilds the same signers from it) and used here.
        await saveTrustedListPivots(db, chain.map((p) => ({ url: p.url, xml: p.bytes, sha256: p.sha256, sequence: p.sequence, fetched_at: p.fetchedAt })));
        this.lotlSigners = signers;
        this.chain = chain;
        this.chainSeen = chainKey(chain);
        this.deps.logger.info(
          { pivots: chain.map((p) => p.url), lotl_sequence: withLotl.lotl.list.sequence },
          `trusted lists: LOTL signing certificates rotated; followed ${chain.length} pivot LOTL(s) from the pinned certificates`,
        );
      }

      const copies: ListCopy[] = [lotlCopy];
      const wanted = config.trustedListsTerritories;
      for (const [territory, url] of [...withLotl.lotl.list.locations].sort(([a], [b]) => a.localeCompare(b))) {
        if (territory === 'EU' || (wanted && !wanted.has(territory))) continue;
        if (this.stopping.signal.aborted) return 'failed';
        try {
          const got = await fetchList(url, fetchOpts);
          copies.push({ territory, bytes: got.bytes, kind: 'download', origin: url, fetchedAt: clock.now(), url: got.url });
        } catch (e) {
          this.warn(`trusted lists: ${territory} not fetched from ${url}: ${(e as Error).message}; the copy held stays`);
        }
      }
      // The national lists against the LOTL just taken (a list held whose signer it no longer announces goes).
      const next = this.choose(copies.slice(1), { lotl: withLotl.lotl, lists: held.lists });
      // Store what this refresh fetched and was taken, or found unchanged (the database never goes back either).
      const fetched = new Map(copies.map((c) => [`${c.territory}:${sha256Hex(c.bytes)}`, c]));
      for (const h of [next.lotl!, ...next.lists.values()]) {
        const c = fetched.get(`${h.territory}:${h.sha256}`);
        if (c) await saveTrustedList(db, rowOf({ ...h, fetchedAt: c.fetchedAt, url: c.url }));
      }
      this.publish(next);
      await finishTrustedListRefresh(db, this.owner, null);
      return 'refreshed';
    });
  }

  /**
   * Fetches the pivots `urls` names (newest first, as the LOTL lists them; a pivot of the chain held is not fetched
   * again: a pivot is a fixed document), walks them oldest first from the pins, and checks that the result verifies
   * `lotl`. Either the signers and the chain, or why not (naming the pivot).
   */
  private async followRotation(urls: string[], lotl: Uint8Array, fetchOpts: ListFetchOptions): Promise<{ signers: Uint8Array[]; chain: FollowedPivot[] } | { error: string }> {
    const now = this.deps.clock.now();
    if (urls.length > MAX_PIVOTS) return { error: `it names ${urls.length} pivot LOTLs, more than the ${MAX_PIVOTS} followed` };
    const copies: PivotCopy[] = [];
    for (const url of [...urls].reverse()) {
      const held = this.chain.find((p) => p.url === url);
      if (held) {
        copies.push(held);
        continue;
      }
      if (this.stopping.signal.aborted) return { error: 'stopped' };
      try {
        const got = await fetchList(url, fetchOpts);
        copies.push({ url, bytes: got.bytes, fetchedAt: now });
      } catch (e) {
        return { error: `pivot ${url} not fetched: ${(e as Error).message}` };
      }
    }
    const walk = followPivots(this.pins, copies, now);
    if (!walk.ok) return { error: `pivot ${walk.pivot} refused: ${walk.reason}` };
    if (walk.followed.length === 0) {
      const first = walk.skipped[0];
      return { error: `pivot ${first.url} refused: ${first.reason}` };
    }
    if (!verifiesWith(lotl, walk.signers, now)) {
      return { error: `it does not verify with the certificates the last pivot (${walk.followed.at(-1)!.url}) announces` };
    }
    return { signers: walk.signers, chain: walk.followed };
  }

  /**
   * Rebuilds the LOTL signers from the pins through the pivot chain stored in the database (verified again), when it
   * differs from the one held. A chain that no longer verifies (rows tampered with, other pins) leaves the pins in
   * use, with one warning. Returns whether the signers changed.
   */
  private async takeStoredChain(): Promise<boolean> {
    const { db } = this.deps;
    const stored = await trustedListPivotVersions(db);
    const key = chainKey(stored);
    if (key === this.chainSeen) return false;
    this.chainSeen = key;
    const rows = stored.length === 0 ? [] : await trustedListPivotRows(db);
    const walk = followPivots(this.pins, rows.map((r) => ({ url: r.url, bytes: r.xml, fetchedAt: new Date(r.fetched_at) })), this.deps.clock.now());
    if (!walk.ok) {
      this.warn(`trusted lists: the pivot chain in the database is not used: pivot ${walk.pivot} refused: ${walk.reason}`);
      return false;
    }
    // Pivots none of the pins verifies (the operator pinned a newer notice): the pins are the signers.
    const before = chainKey(this.chain);
    this.chain = walk.followed;
    this.lotlSigners = walk.followed.length > 0 ? walk.signers : this.pins;
    return chainKey(this.chain) !== before;
  }

  private async failed(message: string, intervalMs: number, log = true): Promise<RefreshOutcome> {
    if (log) this.warn(`trusted lists: ${message}`);
    await finishTrustedListRefresh(this.deps.db, this.owner, message, new Date(this.deps.clock.now().getTime() + Math.min(intervalMs, RETRY_AFTER_FAILURE_MS)));
    return 'failed';
  }

  /**
   * Takes up what another process stored: each row that differs from the copy held is read and verified again; the
   * same copy fetched again only moves its date. Returns whether anything changed.
   */
  pickUp(): Promise<boolean> {
    return this.serial(async () => {
      const { db } = this.deps;
      // Another process may have followed a rotation: its chain first, so its LOTL verifies here too.
      const signersChanged = await this.takeStoredChain();
      // Rows passed over were judged with the signers before: judged again with the new ones.
      if (signersChanged) this.passedOver.clear();
      const held = this.set;
      const heldOf = (t: string): HeldList | null => (t === 'EU' ? held.lotl : (held.lists.get(t) ?? null));
      const wanted = this.deps.config.trustedListsTerritories;
      const key = (v: { territory: string; sha256: string; fetched_at: Date }) => `${v.territory}:${v.sha256}:${new Date(v.fetched_at).getTime()}`;
      const versions = (await trustedListVersions(db)).filter((v) => (v.territory === 'EU' || !wanted || wanted.has(v.territory)) && !this.passedOver.has(key(v)));
      const changed = versions.filter((v) => {
        const h = heldOf(v.territory);
        return !h || h.sha256 !== v.sha256 || (h.fetchedAt?.getTime() ?? -Infinity) < new Date(v.fetched_at).getTime();
      });
      if (changed.length === 0) return signersChanged;
      const rows = await trustedListRows(db, changed.map((v) => v.territory));
      const next = this.choose(rows.map(fromRow), held);
      const nextOf = (t: string): HeldList | null => (t === 'EU' ? next.lotl : (next.lists.get(t) ?? null));
      // A row refused (tampered with, older than the copy held, no longer announced) is not read again until it changes.
      for (const r of rows) if (nextOf(r.territory)?.sha256 !== sha256Hex(r.xml)) this.passedOver.add(key(r));
      const same = (a: HeldList | null, b: HeldList | null) => a?.sha256 === b?.sha256 && a?.fetchedAt?.getTime() === b?.fetchedAt?.getTime();
      const territories = new Set([...held.lists.keys(), ...next.lists.keys()]);
      if (same(held.lotl, next.lotl) && [...territories].every((t) => same(heldOf(t), nextOf(t)))) return signersChanged;
      this.publish(next);
      return true;
    });
  }

  /**
   * Every `sweepMs` (default a minute): takes the refresh when due and `fetch` is on (processes that run the worker),
   * and picks up newer copies from the database (every process). Stop it before closing the database. Without a
   * pinned LOTL signer it does nothing.
   */
  start(opts: { fetch: boolean; sweepMs?: number }): { stop(): Promise<void> } {
    // Without a pinned LOTL signer nothing fetched or stored could be verified: no loop at all.
    if (this.pins.length === 0) return { stop: async () => {} };
    const sweepMs = opts.sweepMs ?? 60_000;
    let stopping = false;
    let wake: (() => void) | null = null;
    const loop = (async () => {
      while (!stopping) {
        try {
          if (opts.fetch) await this.refresh();
          if (!stopping) await this.pickUp();
        } catch (err) {
          if (!stopping) this.deps.logger.error({ err }, 'trusted lists: refresh loop error');
        }
        if (stopping) break;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, sweepMs);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    })();
    return {
      stop: async () => {
        stopping = true;
        this.stopping.abort();
        wake?.();
        await loop;
      },
    };
  }
}
