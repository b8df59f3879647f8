import { promises as dns, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { judgeAddress } from './address-policy.ts';

/** Resolves a host name to its addresses (injectable, so tests can map names to addresses). */
export type HostResolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const defaultResolver: HostResolver = (hostname) => dns.lookup(hostname, { all: true, order: 'verbatim' });

/** A lookup refused because the host resolves to a loopback, private, link-local or metadata address. */
export class ForbiddenAddressError extends Error {
  readonly code = 'COTEJO_FORBIDDEN_ADDRESS';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls (file_url downloads, webhook deliveries): resolves with `resolver` and refuses
 * the host, with ForbiddenAddressError, when any of its addresses is not public — a host that publishes
 * an internal address is refused whole, even if it has public ones too. The connection then uses only
 * the addresses checked here, so a second resolution (DNS rebinding) cannot sneak in another one.
 */
export function guardedLookup(resolver: HostResolver, allowPrivate: boolean): LookupFunction {
  const lookup = (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    resolver(hostname).then(
      (found) => {
        let addresses = found.filter((a) => a.family === 4 || a.family === 6);
        if (options.family === 4 || options.family === 6) addresses = addresses.filter((a) => a.family === options.family);
        if (addresses.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = 'ENOTFOUND';
          callback(err, '');
          return;
        }
        const bad = allowPrivate ? undefined : addresses.find((a) => !judgeAddress(a.address).allowed);
        if (bad) {
          callback(new ForbiddenAddressError(`${hostname} resolves to ${bad.address} (${judgeAddress(bad.address).range}), which is not a public address`), '');
          return;
        }
        if (options.all) callback(null, addresses.map((a) => ({ address: a.address, family: a.family })));
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
  return lookup as unknown as LookupFunction;
}
