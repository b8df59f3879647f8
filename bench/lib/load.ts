// A small HTTP/1.1 load generator for the throughput benchmarks (bench/analyze.ts, bench/catalogue.ts).
// C keep-alive connections each send one precomputed request (head and body encoded once, written as one
// Buffer), wait for the whole answer, and send the next, back to back, for a warm-up and then D measured
// seconds. Answers are parsed by a minimal reader written for this (status line, Content-Length or chunked,
// Connection: close); bodies are counted, never kept (autocannon spent more time parsing a 527 KB body than
// the servers spent sending it; node:http's client would add a request and a response object per exchange).
//
// runLoad() runs the generator in a child process of its own (`fork`), so its CPU time is measured apart from
// the benchmark's and reported as `generatorCpu` (cores over the measured window): near 1.0 per process means
// the generator, not the server, was the limit. `processes: N` shares the connections among N such processes
// and merges their results. Measured ceiling of one process on the 2-core machine of the results files, against
// nginx (one process) on the same machine: about 4,900 answers/s of 527 KB (2.5 GB/s) and 56,000 304s/s, at
// about 1.0 core; with two processes nginx's 200s rose to about 6,200/s, its 304s fell to 41,000/s (nginx then
// had less CPU).
//
// What is counted: answers completed inside the measured window (after the warm-up); their latency is from the
// first byte written to the last byte read (process.hrtime.bigint()). When the window closes no new request is
// sent; answers still in flight are awaited (up to `drainS`, so the server is idle before the next run) but not
// counted. A connection the server closes is reopened; a failed or reset exchange counts as an error.
import { fork, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export type LoadRequest = {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | Uint8Array;
};

export type LoadOptions = {
  /** http://host:port */
  baseUrl: string;
  request: LoadRequest;
  connections: number;
  durationS: number;
  warmupS?: number;
  /** How long answers in flight at the end of the window are awaited before the sockets are destroyed. */
  drainS?: number;
  /** runLoad only: generator processes (default 1), the connections shared among them, the results merged. */
  processes?: number;
};

export type LoadResult = {
  connections: number;
  durationS: number;
  /** Answers completed in the window. */
  requests: number;
  rps: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  statuses: Record<string, number>;
  non2xx: number;
  errors: number;
  /** Response bytes (heads and bodies) read in the window. */
  bytes: number;
  /** CPU time of the generator process over the window, as a fraction of one core. */
  generatorCpu: number;
  /** The head and the first bytes of the body of the first answer of each status, for diagnosis. */
  samples: Record<string, string>;
  /** Every latency of the window, sorted (kept only between a generator process and runLoad, to merge them). */
  latencies?: Float64Array;
};

const CRLFCRLF = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

function encodeRequest(baseUrl: string, r: LoadRequest): Buffer {
  const u = new URL(baseUrl);
  const body = r.body ? Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength) : undefined;
  let head = `${r.method} ${r.path} HTTP/1.1\r\nHost: ${u.host}\r\nConnection: keep-alive\r\n`;
  for (const [k, v] of Object.entries(r.headers ?? {})) head += `${k}: ${v}\r\n`;
  if (body || (r.method !== 'GET' && r.method !== 'HEAD')) head += `Content-Length: ${body?.length ?? 0}\r\n`;
  head += '\r\n';
  return body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function summarize(sorted: Float64Array): LoadResult['latencyMs'] {
  let sum = 0;
  for (const v of sorted) sum += v;
  const n = sorted.length;
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: n ? sorted[n - 1]! : NaN, mean: n ? sum / n : NaN };
}

/** Runs the load in this process (the child's side of runLoad; usable directly too). */
export async function runLoadHere(opts: LoadOptions): Promise<LoadResult> {
  const u = new URL(opts.baseUrl);
  const host = u.hostname;
  const port = Number(u.port || 80);
  const isHead = opts.request.method === 'HEAD';
  const wire = encodeRequest(opts.baseUrl, opts.request);
  const warmupNs = BigInt(Math.round((opts.warmupS ?? 2) * 1e9));
  const durationNs = BigInt(Math.round(opts.durationS * 1e9));
  const start = process.hrtime.bigint();
  const windowStart = start + warmupNs;
  const windowEnd = windowStart + durationNs;

  let latencies = new Float64Array(1 << 16);
  let n = 0;
  const statuses: Record<string, number> = {};
  const samples: Record<string, string> = {};
  let errors = 0;
  let bytes = 0;
  let cpuAtWindowStart: NodeJS.CpuUsage | undefined;
  let cpuAtWindowEnd: NodeJS.CpuUsage | undefined;
  // CPU time is read when the window opens and closes: by timer, or by the first answer recorded in the window
  // and the first connection to stop, whichever comes first (timers run late when the loop is saturated).
  const cpuTimer = setTimeout(() => (cpuAtWindowStart ??= process.cpuUsage()), Number(warmupNs / 1_000_000n));
  const cpuEndTimer = setTimeout(() => (cpuAtWindowEnd ??= process.cpuUsage()), Number((warmupNs + durationNs) / 1_000_000n));

  const record = (t0: bigint, t1: bigint, status: number, size: number) => {
    if (t1 < windowStart || t1 > windowEnd) return;
    cpuAtWindowStart ??= process.cpuUsage();
    if (n === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[n++] = Number(t1 - t0) / 1e6;
    statuses[status] = (statuses[status] ?? 0) + 1;
    bytes += size;
  };

  const connection = (): Promise<void> =>
    new Promise((done) => {
      let socket: net.Socket;
      let t0 = 0n;
      let inFlight = false;
      // Parser state for the answer being read.
      let state: 'head' | 'body' | 'chunk-size' | 'chunk-data' | 'trailer' | 'until-close' = 'head';
      let pending: Buffer | null = null;
      let remaining = 0;
      let status = 0;
      let size = 0;
      let closeAfter = false;
      let sampling = false;
      let sample = '';

      const send = () => {
        if (process.hrtime.bigint() >= windowEnd) return finish();
        inFlight = true;
        state = 'head';
        pending = null;
        size = 0;
        t0 = process.hrtime.bigint();
        socket.write(wire);
      };
      const complete = () => {
        inFlight = false;
        record(t0, process.hrtime.bigint(), status, size);
        if (sampling) {
          samples[status] = sample;
          sampling = false;
        }
        if (closeAfter) {
          socket.destroy();
          open();
        } else send();
      };
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        cpuAtWindowEnd ??= process.cpuUsage();
        socket.destroy();
        done();
      };
      const open = () => {
        if (process.hrtime.bigint() >= windowEnd) return finish();
        const s = net.connect({ host, port, noDelay: true });
        socket = s;
        s.on('connect', send);
        s.on('data', onData);
        s.on('error', () => {});
        s.on('close', () => {
          if (finished || s !== socket) return;
          if (inFlight) {
            if (state === 'until-close') {
              complete();
              return;
            }
            const now = process.hrtime.bigint();
            if (now >= windowStart && now <= windowEnd) errors++;
            inFlight = false;
          }
          // Reopened (the server closed a kept-alive connection, or an exchange failed).
          setImmediate(open);
        });
      };
      /** The bytes before `delimiter` (those held from earlier chunks first), or null while it has not arrived (held). */
      const upTo = (chunk: Buffer, delimiter: Buffer): { text: string; rest: Buffer } | null => {
        const data: Buffer = pending ? Buffer.concat([pending, chunk]) : chunk;
        const end = data.indexOf(delimiter);
        if (end < 0) {
          pending = data;
          return null;
        }
        pending = null;
        size += end + delimiter.length;
        return { text: data.toString('latin1', 0, end), rest: data.subarray(end + delimiter.length) };
      };
      const onData = (chunk: Buffer) => {
        while (chunk.length > 0) {
          if (state === 'head') {
            const got = upTo(chunk, CRLFCRLF);
            if (!got) return;
            const head = got.text;
            status = Number(head.slice(9, 12));
            chunk = got.rest;
            closeAfter = /\r\nconnection:[ \t]*close/i.test(head);
            if (!(status in samples)) {
              sampling = true;
              sample = head;
            }
            if (status >= 100 && status < 200) continue; // 100 Continue: the real answer follows
            const cl = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
            if (isHead || status === 204 || status === 304) {
              remaining = 0;
            } else if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) {
              state = 'chunk-size';
              continue;
            } else if (cl) {
              remaining = Number(cl[1]);
            } else {
              state = 'until-close';
              closeAfter = true;
              continue;
            }
            if (remaining === 0) {
              complete();
              return;
            }
            state = 'body';
          } else if (state === 'body' || state === 'chunk-data' || state === 'until-close') {
            const take = state === 'until-close' ? chunk.length : Math.min(remaining, chunk.length);
            if (sampling && sample.length < 2000) sample += chunk.toString('utf8', 0, Math.min(take, 300));
            remaining -= take;
            size += take;
            chunk = chunk.subarray(take);
            if (state === 'until-close') return;
            if (remaining === 0) {
              if (state === 'body') {
                complete();
                return;
              }
              state = 'chunk-size';
            }
          } else {
            // chunk-size and trailer lines: read a line at a time.
            const got = upTo(chunk, CRLF);
            if (!got) return;
            const line = got.text;
            chunk = got.rest;
            if (state === 'chunk-size') {
              if (line === '') continue; // the CRLF that ends a chunk's data
              const len = parseInt(line, 16);
              if (len === 0) state = 'trailer';
              else {
                remaining = len;
                state = 'chunk-data';
              }
            } else if (line === '') {
              complete();
              return;
            }
          }
        }
      };
      open();
    });

  const conns: Promise<void>[] = [];
  for (let i = 0; i < opts.connections; i++) conns.push(connection());
  const drain = new Promise<void>((r) => {
    const t = setTimeout(r, Number((warmupNs + durationNs) / 1_000_000n) + (opts.drainS ?? 60) * 1000);
    t.unref();
  });
  await Promise.race([Promise.all(conns), drain]);
  clearTimeout(cpuTimer);
  clearTimeout(cpuEndTimer);
  const cpuUs =
    cpuAtWindowStart && cpuAtWindowEnd ? cpuAtWindowEnd.user + cpuAtWindowEnd.system - (cpuAtWindowStart.user + cpuAtWindowStart.system) : NaN;

  const sorted = latencies.subarray(0, n).sort();
  let non2xx = 0;
  for (const [s, c] of Object.entries(statuses)) if (!(Number(s) >= 200 && Number(s) < 300)) non2xx += c;
  return {
    connections: opts.connections,
    durationS: opts.durationS,
    requests: n,
    rps: n / opts.durationS,
    latencyMs: summarize(sorted),
    statuses,
    non2xx,
    errors,
    bytes,
    generatorCpu: cpuUs / (opts.durationS * 1e6),
    samples,
    latencies: sorted,
  };
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

/** Runs the load in one child process of its own, or `processes` of them (see the header). */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const p = Math.max(1, Math.min(opts.processes ?? 1, opts.connections));
  const parts = await Promise.all(
    Array.from({ length: p }, (_, i) => runInChild({ ...opts, connections: Math.floor(opts.connections / p) + (i < opts.connections % p ? 1 : 0) })),
  );
  const all = new Float64Array(parts.reduce((t, r) => t + r.requests, 0));
  let at = 0;
  for (const r of parts) {
    all.set(r.latencies!, at);
    at += r.requests;
  }
  all.sort();
  const statuses: Record<string, number> = {};
  const samples: Record<string, string> = {};
  for (const r of parts) {
    for (const [s, k] of Object.entries(r.statuses)) statuses[s] = (statuses[s] ?? 0) + k;
    Object.assign(samples, r.samples);
  }
  const sum = (f: (r: LoadResult) => number) => parts.reduce((t, r) => t + f(r), 0);
  return {
    connections: opts.connections,
    durationS: opts.durationS,
    requests: all.length,
    rps: all.length / opts.durationS,
    latencyMs: summarize(all),
    statuses,
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    bytes: sum((r) => r.bytes),
    generatorCpu: sum((r) => r.generatorCpu),
    samples,
  };
}

function runInChild(opts: LoadOptions): Promise<LoadResult> {
  return new Promise((ok, fail) => {
    const child = fork(import.meta.filename, ['--load-child'], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.add(child);
    let result: LoadResult | undefined;
    child.on('message', (m) => {
      result = m as LoadResult;
      child.disconnect();
    });
    child.on('error', fail);
    child.on('exit', (code) => {
      children.delete(child);
      if (result) ok(result);
      else fail(new Error(`load generator exited with ${code} and no result`));
    });
    child.send(opts);
  });
}

if (process.argv.includes('--load-child') && process.send) {
  process.once('message', async (m) => {
    const opts = m as LoadOptions;
    const result = await runLoadHere(opts);
    process.send!(result, () => process.exit(0));
  });
}
