import type { IncomingMessage } from 'node:http';

/** Express's compiled `trust proxy` (app.get('trust proxy fn')): is the hop `i` away, at `addr`, a trusted proxy? */
export type TrustFn = (addr: string, i: number) => boolean;

/**
 * The client's address as Express's `req.ip` reads it (proxy-addr's algorithm), for the code that answers before
 * Express (the public fast path): the connection's address, then X-Forwarded-For from right to left while the hop
 * just read is trusted. With `trust proxy` off it is the connection's address whatever the header says.
 */
export function clientAddress(req: IncomingMessage, trust: TrustFn): string | undefined {
  const socketAddr = req.socket.remoteAddress;
  const header = req.headers['x-forwarded-for'];
  if (socketAddr === undefined || header === undefined || !trust(socketAddr, 0)) return socketAddr;
  const forwarded = (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '')
    .reverse();
  const addrs = [socketAddr, ...forwarded];
  for (let i = 0; i < addrs.length - 1; i++) if (!trust(addrs[i], i)) return addrs[i];
  return addrs[addrs.length - 1];
}
