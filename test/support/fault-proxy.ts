/**
 * A TCP proxy of our own between Cotejo and a dependency (PostgreSQL, the S3 server, an SMTP server) that takes it
 * away on command (issue #31, test/faults/):
 * - `refuse()`: new connections are closed as soon as they open (the dependency is down); live ones go on;
 * - `cut()`: every live connection is destroyed at once (a restart, a network cut); new ones still pass;
 * - `down()`: both (a restart that takes a while);
 * - `stall()`: connections stay open but no byte passes either way (a hung server, a black-holed network); new
 *   ones are accepted and held;
 * - `restore()`: bytes pass again (held connections go on where they stopped; new ones are forwarded).
 */
import net from 'node:net';

export type FaultMode = 'pass' | 'refuse' | 'stall';

export interface FaultProxy {
  port: number;
  /** `host:port` of the proxy. */
  readonly address: string;
  readonly mode: FaultMode;
  /** Connections opened through the proxy so far. */
  readonly opened: number;
  refuse(): void;
  cut(): void;
  down(): void;
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | null;
  /** Bytes from the client not yet sent upstream (a connection accepted while stalled). */
  held: Buffer[];
}

export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  let mode: FaultMode = 'pass';
  let opened = 0;
  const pairs = new Set<Pair>();

  const end = (p: Pair): void => {
    pairs.delete(p);
    p.client.destroy();
    p.upstream?.destroy();
  };
  const connectUpstream = (p: Pair): void => {
    const up = net.connect(target.port, target.host);
    p.upstream = up;
    up.setNoDelay(true);
    for (const b of p.held) up.write(b);
    p.held = [];
    up.on('data', (d) => p.client.write(d));
    up.on('error', () => end(p));
    up.on('close', () => end(p));
  };

  const server = net.createServer((client) => {
    opened++;
    client.on('error', () => undefined);
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    client.setNoDelay(true);
    const p: Pair = { client, upstream: null, held: [] };
    pairs.add(p);
    client.on('data', (d) => {
      if (p.upstream) p.upstream.write(d);
      else p.held.push(d);
    });
    client.on('close', () => end(p));
    if (mode === 'stall') client.pause();
    else connectUpstream(p);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    address: `127.0.0.1:${port}`,
    get mode() {
      return mode;
    },
    get opened() {
      return opened;
    },
    refuse() {
      mode = 'refuse';
    },
    cut() {
      for (const p of [...pairs]) end(p);
    },
    down() {
      mode = 'refuse';
      for (const p of [...pairs]) end(p);
    },
    stall() {
      mode = 'stall';
      for (const p of pairs) {
        p.client.pause();
        p.upstream?.pause();
      }
    },
    restore() {
      const was = mode;
      mode = 'pass';
      if (was !== 'stall') return;
      for (const p of pairs) {
        if (!p.upstream) connectUpstream(p);
        p.upstream!.resume();
        p.client.resume();
      }
    },
    async close() {
      for (const p of [...pairs]) end(p);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
