// Pushes a sandbox's state change to the gateway's POST /hooks/{provider_id}, signed the way the gateway signs its
// own webhooks (`t=…,v2=<hex HMAC-SHA256("<t>.<body>")>` keyed with the whole secret). The hook id stays the same
// across retries so that the gateway processes it once.
import { createHmac, randomBytes } from "node:crypto";

/** Where hooks go and the secret they are signed with; given by the gateway that starts the sandbox. */
export interface SandboxHooks {
  url: () => string;
  secret: string;
}

/** Sends one hook; resolves true once the gateway answered 2xx, false when it refused it or never answered. */
export type PushHook = (type: string, payload: Record<string, unknown>) => Promise<boolean>;

export interface PushHookOptions {
  /** Tries in all (default 12), spaced 250 ms, 750 ms, 2.25 s, … up to `maxDelayMs` apart. */
  attempts?: number;
  baseDelayMs?: number;
  /** The longest pause between two tries (default 30 s): with the defaults, a hook is tried for about 4 minutes. */
  maxDelayMs?: number;
  timeoutMs?: number;
}

export function signHook(body: string, secret: string, nowMs = Date.now()): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v2=${createHmac("sha256", Buffer.from(secret, "utf8")).update(`${t}.${body}`).digest("hex")}`;
}

// Unreferenced: a hook still being retried never keeps a process from ending.
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** A pusher for the sandbox's hooks; without hooks configured it does nothing (the sandbox runs standalone). */
export function createPushHook(hooks: SandboxHooks | undefined, options: PushHookOptions = {}): PushHook {
  // Long enough to outlast a gateway's restart or a deploy: a change whose hook is given up on reaches the gateway
  // only when a call reads the resource again.
  const attempts = options.attempts ?? 12;
  const baseDelayMs = options.baseDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return async (type, payload) => {
    if (!hooks) return false;
    const body = JSON.stringify({
      id: `hk_${randomBytes(16).toString("hex")}`,
      type,
      created_at: new Date().toISOString(),
      data: payload,
    });
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const response = await fetch(hooks.url(), {
          method: "POST",
          headers: { "content-type": "application/json", "gateway-signature": signHook(body, hooks.secret) },
          body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        await response.arrayBuffer();
        if (response.ok) return true;
        // A refusal (bad signature, unknown provider) will not change on a retry; a 429 or 5xx may.
        if (response.status !== 429 && response.status < 500) return false;
      } catch {
        // not reachable yet: retry
      }
      if (attempt < attempts) await pause(Math.min(baseDelayMs * 3 ** (attempt - 1), maxDelayMs));
    }
    return false;
  };
}
