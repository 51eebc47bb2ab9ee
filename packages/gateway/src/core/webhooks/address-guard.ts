// Which IP addresses a webhook may not reach: private, loopback, link-local, shared, multicast, reserved and
// documentation ranges, and IPv6 forms that embed such an IPv4 address (compatible, mapped, translated, NAT64, 6to4).
import net from "node:net";

const blocked = new net.BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 127], // :: and ::1
  ["100::", 64],
  ["2001::", 23], // IETF protocol assignments, not globally reachable: Teredo (2001::/32) tunnels to an IPv4 it embeds
  ["2001:db8::", 32],
  ["3fff::", 20], // documentation, as 2001:db8::/32 (RFC 9637)
  ["5f00::", 16], // segment routing (SRv6) identifiers
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

/** The eight 16-bit groups of an IPv6 address (with or without a trailing dotted IPv4). */
function hextets(address: string): number[] {
  let text = address.toLowerCase().split("%")[0] ?? "";
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a, b, c, d] = dotted[1].split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(":").map((h) => Number.parseInt(h, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  return [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
}

const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * The IPv4 address inside an IPv6 address that embeds one in its last 32 bits: IPv4-compatible (::/96), mapped
 * (::ffff:0:0/96), translated (SIIT, ::ffff:0:0:0/96), NAT64 with the well-known prefix (64:ff9b::/96) or with the
 * local-use prefix (64:ff9b:1::/48, in its /96 form); and the one in bits 16–47 of 6to4 (2002::/16).
 */
function embeddedIpv4(address: string): string | undefined {
  const h = hextets(address);
  const [a, b, c, d, e, f] = h;
  const last = () => v4(h[6] ?? 0, h[7] ?? 0);
  if (a === 0 && b === 0 && c === 0 && d === 0) {
    if ((e === 0 && (f === 0 || f === 0xffff)) || (e === 0xffff && f === 0)) return last();
  }
  if (a === 0x64 && b === 0xff9b && (c === 0 || c === 1)) return last();
  if (a === 0x2002) return v4(b ?? 0, c ?? 0);
  return undefined;
}

export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address.split("%")[0] ?? "");
  if (family === 4) return blocked.check(address, "ipv4");
  if (family !== 6) return true; // not an address at all: never connect to it
  if (blocked.check(address.split("%")[0] ?? "", "ipv6")) return true;
  const inner = embeddedIpv4(address);
  return inner !== undefined && blocked.check(inner, "ipv4");
}
