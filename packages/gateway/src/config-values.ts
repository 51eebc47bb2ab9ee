// The values of configuration variables and CLI flags: each parsed strictly, or an error that names the variable
// and says what it takes (config.ts assembles the configuration from them).
import net from "node:net";

export type Env = Record<string, string | undefined>;

/** The longest timer Node honours (2^31 − 1 ms, about 24.8 days): a longer one fires after 1 ms, over and over. */
export const maxTimerMs = 2_147_483_647;

interface Bounds {
  min?: number;
  max?: number;
  /** What the value is, for the error; by default said from the bounds. */
  what?: string;
}

/** A value of decimal digits within bounds; `name` is the variable or flag the error names. */
function parseInteger(name: string, raw: string, { min = 0, max = Number.MAX_SAFE_INTEGER, what }: Bounds) {
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (value >= min && value <= max) return value;
  const said =
    what ??
    (max < Number.MAX_SAFE_INTEGER
      ? `an integer from ${min} to ${max}`
      : min === 0
        ? "a non-negative integer"
        : "a positive integer");
  throw new Error(`${name} must be ${said}, got "${raw}"`);
}

export function integer(env: Env, name: string, fallback: number, bounds: Bounds = {}): number {
  const raw = env[name];
  return raw === undefined || raw === "" ? fallback : parseInteger(name, raw, bounds);
}

/** A timer's duration: 0 only where it means something (min 0), never past what Node can wait. */
export const milliseconds = (env: Env, name: string, fallback: number, min = 1) =>
  integer(env, name, fallback, { min, max: maxTimerMs, what: `a number of milliseconds from ${min} to ${maxTimerMs}` });

export const parsePort = (name: string, raw: string) =>
  parseInteger(name, raw, { max: 65_535, what: "a port number (0 to 65535)" });

export function flag(env: Env, name: string): boolean {
  const value = (env[name] ?? "").toLowerCase();
  if (["1", "true", "yes"].includes(value)) return true;
  if (["", "0", "false", "no"].includes(value)) return false;
  throw new Error(`${name} is a switch: on with 1, true or yes, off with 0, false, no or empty; got "${env[name]}"`);
}

export function environment(env: Env): "development" | "production" | "test" {
  const name = env.GATEWAY_ENV ? "GATEWAY_ENV" : "NODE_ENV";
  const value = env[name] || "development";
  if (value === "development" || value === "production" || value === "test") return value;
  const hint = name === "NODE_ENV" ? " (or set GATEWAY_ENV, which comes first)" : "";
  throw new Error(`${name} must be development, production or test${hint}, got "${value}"`);
}

const hostName = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\.?$/;

/** An interface to bind: an IP address or a host name (all digits and dots is an address, and must be a valid one). */
export function parseHost(name: string, raw: string): string {
  if (net.isIP(raw) !== 0 || (hostName.test(raw) && !/^[\d.]+$/.test(raw))) return raw;
  throw new Error(`${name} must be an IP address or a host name to listen on, got "${raw}"`);
}

function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/**
 * An absolute http(s) URL, without credentials, query or fragment (paths are appended to it); no trailing slash.
 * A value with credentials is refused without being repeated: the public URL goes into every connect link and the
 * OpenAPI document, and an upstream's password does not belong in a start-up error either.
 */
export function httpUrl(name: string, raw: string): string {
  const url = parseUrl(raw);
  if (url && (url.username || url.password)) {
    throw new Error(`${name} must not carry credentials (user:password@); the value is not repeated here`);
  }
  // A bare "?" or "#" parses to an empty search or hash, and a path appended to the URL would land after it.
  if (!/^https?:\/\//i.test(raw) || !url?.hostname || /[?#]/.test(raw)) {
    // One that does not parse may still hold credentials: what stands before an @ is not repeated.
    const shown = raw.replace(/^([^:/?#]*:\/\/)[^/?#]*@/, "$1…@");
    throw new Error(`${name} must be an absolute http:// or https:// URL without query or fragment, got "${shown}"`);
  }
  return raw.replace(/\/$/, "");
}

export function redisUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  // The value is not repeated: it may hold a password.
  if (!/^rediss?:\/\/./i.test(raw) || !parseUrl(raw)) {
    throw new Error("GATEWAY_REDIS_URL must be a redis:// or rediss:// URL (leave it unset for limits per node)");
  }
  return raw;
}

const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export function logLevel(raw: string | undefined): string {
  if (!raw) return "info";
  if (logLevels.includes(raw)) return raw;
  throw new Error(`GATEWAY_LOG_LEVEL must be one of ${logLevels.join(", ")}, got "${raw}"`);
}

/** One GATEWAY_TRUST_PROXY entry: an IPv4 or IPv6 address, with or without a /prefix length. */
function isAddressOrRange(part: string): boolean {
  const [address = "", prefix, extra] = part.split("/");
  const family = net.isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** More proxies than any real chain has; `true` trusts them all. */
const maxTrustedHops = 100;

/** "true" (every proxy), a hop count, or comma-separated addresses and CIDR ranges; unset or empty: none. */
export function trustProxy(value: string | undefined): boolean | number | string[] {
  const text = value?.trim() ?? "";
  if (text === "" || text === "false" || text === "0") return false;
  if (text === "true") return true;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > maxTrustedHops) {
      throw new Error(`GATEWAY_TRUST_PROXY takes at most ${maxTrustedHops} hops (or true for any), got "${text}"`);
    }
    return hops;
  }
  const parts = text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  const wrong = parts.find((part) => !isAddressOrRange(part));
  if (wrong !== undefined) {
    throw new Error(
      `GATEWAY_TRUST_PROXY must be true, a hop count, or comma-separated IP addresses and CIDR ranges; "${wrong}" is none of these`,
    );
  }
  return parts;
}
