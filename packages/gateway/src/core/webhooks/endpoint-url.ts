// The rules for a webhook endpoint URL at registration: https only, no credentials, port 1–65535, and no private,
// loopback or link-local target unless GATEWAY_WEBHOOK_ALLOW_PRIVATE=1. Delivery checks the address again.
import net from "node:net";
import { type BrokenRule, invalidRequest } from "../errors.ts";
import { isPrivateAddress } from "./address-guard.ts";
import { BlockedAddressError, type HostResolver, resolveAllowed } from "./resolver.ts";

export interface UrlPolicy {
  allowPrivate: boolean;
  resolve: HostResolver;
}

const refuse = (message: string) =>
  invalidRequest(`The webhook URL is not allowed: ${message}`, [{ path: "/url", message }]);

/** The host part as an address or name, without IPv6 brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

/**
 * What is wrong with the URL's form, if anything: what can be told without looking its host up, and so is said with
 * the input's other problems (platform:set_webhook_endpoint's `check`).
 */
export function urlFormProblem(raw: string, policy: Pick<UrlPolicy, "allowPrivate">): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return whyUnparsable(raw);
  }
  const secure = url.protocol === "https:";
  if (!secure && !(policy.allowPrivate && url.protocol === "http:")) {
    return policy.allowPrivate ? "it must use https:// or http://" : "it must use https://";
  }
  if (url.username || url.password) return "it must not carry credentials";
  // href keeps a bare "#" (an empty fragment) that url.hash reports as "".
  if (url.href.includes("#")) return "it must not have a #fragment";
  // WHATWG URL keeps port 0 (nothing listens there, so every delivery would fail); it drops a scheme's default port.
  if (url.port === "0") return "its port must be 1 to 65535";
  return undefined;
}

/** The rule a URL of a wrong form breaks, as the input's other rules are said. */
export function urlFormRule(raw: string, policy: Pick<UrlPolicy, "allowPrivate">): BrokenRule | undefined {
  const problem = urlFormProblem(raw, policy);
  return problem === undefined
    ? undefined
    : { message: `The webhook URL is not allowed: ${problem}`, problems: [{ path: "/url", message: problem }] };
}

/** Validates the URL and answers it normalised, or throws 400 with the reason. */
export async function checkEndpointUrl(raw: string, policy: UrlPolicy): Promise<string> {
  const problem = urlFormProblem(raw, policy);
  if (problem !== undefined) throw refuse(problem);
  const url = new URL(raw);
  if (policy.allowPrivate) return url.href;
  const host = hostOf(url);
  if (net.isIP(host) !== 0) {
    if (isPrivateAddress(host)) throw refuse(`${host} is a private, loopback or link-local address`);
    return url.href;
  }
  try {
    await resolveAllowed(host, policy);
  } catch (error) {
    if (error instanceof BlockedAddressError) throw refuse(error.message);
    throw refuse(`${host} does not resolve`);
  }
  return url.href;
}

/** What makes a URL that WHATWG URL refuses wrong, for the two mistakes with a message of their own. */
function whyUnparsable(raw: string): string {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]/?#]*\]|[^:/?#]*)(?::([^/?#]*))?/i.exec(raw.trim());
  if (authority?.[1]?.startsWith("[") && authority[1].includes("%")) {
    return "an IPv6 address with a zone (%…) names a local network interface and is not allowed";
  }
  const port = authority?.[2];
  if (port && !/^[0-9]+$/.test(port)) return `its port "${port}" is not a number`;
  if (port && Number(port) > 65535) return "its port must be 1 to 65535";
  return "it is not an absolute URL";
}
