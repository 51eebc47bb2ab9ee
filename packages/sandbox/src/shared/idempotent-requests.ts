// Idempotency-Key on an upstream's POST routes, as payment networks honour it: the first answer to a key (within one
// member's requests) is kept for 24 hours and answered again to a repeat with the same parameters, marked
// `Idempotent-Replayed: true`; the same key with other parameters is a 400. A request whose key's first request is
// still running waits for it (up to 10 s, then a 409) and gets its answer. Requests refused before their handler ran
// (authentication, a body the route's schema refuses) keep nothing, nor do answers of 500 and above.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { badRequest, SandboxError } from "./errors.ts";

export const idempotencyRetentionMs = 24 * 60 * 60 * 1000;

interface Kept {
  parameters: string;
  status: number;
  payload: string;
  at: number;
}

export interface IdempotentRequestsOptions {
  /** Whose keys these are: a key is one member's, never shared with another's. */
  scope(request: FastifyRequest): string;
  now: () => number;
  /** How long a request waits for the first one under its key before a 409 (default 10 s). */
  waitMs?: number;
}

/** Registers the hooks in `api`'s context; call it after the hook that authenticates (its preHandler runs later). */
export function idempotentRequests(api: FastifyInstance, options: IdempotentRequestsOptions): void {
  // In insertion order, which is time order: expired entries are dropped from the front.
  const kept = new Map<string, Kept>();
  const pending = new WeakMap<FastifyRequest, { id: string; parameters: string }>();
  // The first request under each key while it runs, and how to tell those waiting for it that it ended.
  const running = new Map<string, { ended: Promise<void>; end: () => void }>();
  const waitMs = options.waitMs ?? 10_000;
  const finish = (id: string) => {
    running.get(id)?.end();
    running.delete(id);
  };

  api.addHook("preHandler", async (request, reply) => {
    const key = request.headers["idempotency-key"];
    if (request.method !== "POST" || key === undefined) return;
    if (typeof key !== "string" || key.length === 0 || key.length > 255) {
      throw badRequest("Idempotency-Key must be one value of 1 to 255 characters");
    }
    const now = options.now();
    for (const [id, entry] of kept) {
      if (now - entry.at < idempotencyRetentionMs) break;
      kept.delete(id);
    }
    const id = `${options.scope(request)}\n${key}`;
    const parameters = `${request.url}\n${JSON.stringify(request.body ?? null)}`;
    // A takeover sending the key of a request still running here (its sender stopped waiting) gets that request's
    // answer once it is given, rather than acting a second time.
    const deadline = Date.now() + waitMs;
    for (let first = running.get(id); first !== undefined && kept.get(id) === undefined; first = running.get(id)) {
      const left = deadline - Date.now();
      const timedOut = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), Math.max(left, 0));
        first.ended.then(() => {
          clearTimeout(timer);
          resolve(false);
        });
      });
      if (timedOut) {
        throw new SandboxError(409, "bad_request", "A request with this Idempotency-Key is still being processed");
      }
    }
    const entry = kept.get(id);
    if (entry === undefined) {
      let end = () => {};
      const ended = new Promise<void>((resolve) => {
        end = resolve;
      });
      running.set(id, { ended, end });
      pending.set(request, { id, parameters });
      return;
    }
    if (entry.parameters !== parameters) {
      throw badRequest(
        "Keys for idempotent requests can only be used with the same parameters they were first used with",
      );
    }
    return reply
      .code(entry.status)
      .header("content-type", "application/json; charset=utf-8")
      .header("idempotent-replayed", "true")
      .send(entry.payload);
  });

  api.addHook("onSend", async (request, reply, payload) => {
    const first = pending.get(request);
    if (first === undefined) return payload;
    pending.delete(request);
    if (reply.statusCode < 500 && typeof payload === "string") {
      kept.set(first.id, { parameters: first.parameters, status: reply.statusCode, payload, at: options.now() });
    }
    finish(first.id);
    return payload;
  });
  // A request that ended without an answer (its connection closed) frees its key too.
  api.addHook("onResponse", async (request) => {
    const first = pending.get(request);
    if (first !== undefined) finish(first.id);
  });
}
