// Name resolution for webhook delivery. Resolving once and connecting to exactly the address that was checked is
// what keeps DNS rebinding out: the connection never does a second lookup of its own.
import dns from "node:dns";
import { isPrivateAddress } from "./address-guard.ts";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (replaceable in tests to simulate DNS). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

export class BlockedAddressError extends Error {
  readonly code = "WEBHOOK_BLOCKED_ADDRESS";
}

/** Resolves and answers the address to connect to, refusing when any answer is private (unless allowed). */
export async function resolveAllowed(
  hostname: string,
  options: { allowPrivate: boolean; resolve: HostResolver },
): Promise<ResolvedAddress> {
  const addresses = await options.resolve(hostname);
  const first = addresses[0];
  if (!first) throw new Error(`${hostname} did not resolve to any address`);
  if (!options.allowPrivate) {
    const refused = addresses.find((entry) => isPrivateAddress(entry.address));
    if (refused) {
      throw new BlockedAddressError(
        `${hostname} resolves to ${refused.address}, a private, loopback or link-local address`,
      );
    }
  }
  return first;
}
