// Idempotency-Key on an upstream's POST routes, as payment networks honour it: the first answer to a key (within one
// member's requests) is kept for 24 hours and answered again to a repeat with the same parameters, marked
// `Idempotent-Replayed: true`; the same key with other parameters is a 400, and while the first request under a key
// runs, another with it is a 409. Requests refused before their handler ran (authentication, a body the route's
// schema refuses) keep nothing, nor do answers of 500 and above.
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
}

/** Registers the hooks in `api`'s context; call it after the hook that authenticates (its preHandler runs later). */
export function idempotentRequests(api: FastifyInstance, options: IdempotentRequestsOptions): void {
  // In insertion order, which is time order: expired entries are dropped from the front.
  const kept = new Map<string, Kept>();
  const pending = new WeakMap<FastifyRequest, { id: string; parameters: string }>();
  const running = new Set<string>();

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
    const entry = kept.get(id);
    if (entry === undefined) {
      if (running.has(id)) {
        throw new SandboxError(409, "bad_request", "A request with this Idempotency-Key is still being processed");
      }
      running.add(id);
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
    running.delete(first.id);
    if (reply.statusCode < 500 && typeof payload === "string") {
      kept.set(first.id, { parameters: first.parameters, status: reply.statusCode, payload, at: options.now() });
    }
    return payload;
  });
  // A request that ended without an answer (its connection closed) frees its key too.
  api.addHook("onResponse", async (request) => {
    const first = pending.get(request);
    if (first !== undefined) running.delete(first.id);
  });
}
