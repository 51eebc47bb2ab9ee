// Sends one webhook attempt over HTTP: undici with keep-alive, a total timeout, no redirects, and a connection only to
// an address that was resolved and checked in the same step (the private-address guard, against DNS rebinding).
import net from "node:net";
import { Agent } from "undici";
import { BoundedMap } from "../../bounded-map.ts";
import { isPrivateAddress } from "./address-guard.ts";
import { endpointCacheIdleMs, parsedUrlEntries } from "./cache-bounds.ts";
import { hostOf } from "./endpoint-url.ts";
import { PostTimeoutError, postOnce } from "./post.ts";
import { BlockedAddressError, type HostResolver, resolveAllowed } from "./resolver.ts";

export interface SenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  resolve: HostResolver;
  /** Connections kept per receiver origin. */
  connections?: number;
}

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The first 1 KiB of the response body, as text. */
  responseBody: string | null;
}

const responseKeepBytes = 1024;

type LookupCallback = (
  error: Error | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

export class WebhookSender {
  private readonly agent: Agent;

  constructor(private readonly options: SenderOptions) {
    // Node's connect calls this instead of its own DNS lookup, so the address checked is the address connected to.
    const lookup = (hostname: string, lookupOptions: { all?: boolean }, callback: LookupCallback) => {
      resolveAllowed(hostname, options).then(
        (found) =>
          lookupOptions.all
            ? callback(null, [{ address: found.address, family: found.family }])
            : callback(null, found.address, found.family),
        (error: Error) => callback(error, ""),
      );
    };
    this.agent = new Agent({
      connections: options.connections ?? 32,
      pipelining: 1,
      keepAliveTimeout: 4_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connectTimeout: options.timeoutMs,
      connect: { lookup: lookup as never },
    });
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = this.parse(url);
    const host = hostOf(target);
    if (!this.options.allowPrivate && net.isIP(host) !== 0 && isPrivateAddress(host)) {
      return failure(elapsed(), `refused: ${host} is a private, loopback or link-local address`);
    }
    if (!this.options.allowPrivate && target.protocol !== "https:") {
      return failure(elapsed(), "refused: the URL is not https://");
    }
    try {
      const answer = await postOnce(
        this.agent,
        {
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          headers,
          body,
          timeoutMs: this.options.timeoutMs,
        },
        responseKeepBytes,
      );
      const status = answer.statusCode;
      const ok = status >= 200 && status < 300;
      return {
        ok,
        statusCode: status,
        latencyMs: elapsed(),
        error: ok
          ? null
          : status >= 300 && status < 400
            ? answer.location === undefined
              ? `HTTP ${status}, a redirect without a Location`
              : `redirect to ${answer.location} not followed`
            : `HTTP ${status}`,
        responseBody: answer.body,
      };
    } catch (error) {
      return failure(elapsed(), describe(error, error instanceof PostTimeoutError, this.options.timeoutMs));
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  /** Endpoints' URLs parsed once, not for every attempt; bounded as cache-bounds.ts says. */
  private readonly parsed = new BoundedMap<string, URL>(parsedUrlEntries, {
    maxIdleMs: endpointCacheIdleMs,
  });
  private parse(url: string): URL {
    let target = this.parsed.get(url);
    if (!target) {
      target = new URL(url);
      this.parsed.set(url, target);
    }
    return target;
  }
}

const failure = (latencyMs: number, error: string): AttemptOutcome => ({
  ok: false,
  statusCode: null,
  latencyMs,
  error,
  responseBody: null,
});

function describe(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no complete answer within ${timeoutMs} ms`;
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    if (current instanceof BlockedAddressError) return `refused: ${current.message}`;
    const code = (current as { code?: string }).code;
    if (code === "ECONNREFUSED") return "connection refused";
    if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "the host name does not resolve";
    if (code?.includes("TIMEOUT")) return `timeout: no complete answer within ${timeoutMs} ms`;
    // OpenSSL's own message ends with its source file and line: the code says what went wrong.
    if (code?.startsWith("ERR_SSL_")) return `${code}: the TLS handshake failed`;
    if (code && code !== "UND_ERR_SOCKET") return `${code}: ${current.message}`;
    current = current.cause;
  }
  return error instanceof Error ? error.message : String(error);
}
