// Idempotency-Key on every POST under /v1, one mechanism for operations, platform operations and resource
// aliases: a preHandler (after authentication and body parsing) claims the key or replays the stored response, and
// onSend stores the serialized response of the request that held the claim, byte for byte.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { callerOf, type Principal } from "../../core/api-keys.ts";
import { GatewayError } from "../../core/errors.ts";
import { idempotencyKeyHash, parseIdempotencyKey, requestFingerprint } from "../../core/idempotency/key.ts";
import type { HeldClaim, IdempotencyRecords, StoredResponse } from "../../core/idempotency/records.ts";
import { openResponse, sealResponse } from "../../core/idempotency/seal.ts";
import type { Metrics } from "../metrics.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The idempotency claim this request holds while it executes. */
    idempotencyClaim: ActiveClaim | undefined;
  }
}

interface ActiveClaim extends HeldClaim {
  key: string;
  renewal: NodeJS.Timeout;
}

export interface IdempotencyDeps {
  records: IdempotencyRecords;
  /** How long a repeat waits for the first request under its key to finish before 409 (default 10 s). */
  waitMs: number;
  metrics: Pick<Metrics, "idempotentRequests" | "idempotencyWaiting">;
}

/** Answers that mean nothing was executed: the claim is released and the key stays free. */
const notExecutedStatuses = new Set([400, 401, 403, 429]);

export function idempotency(deps: IdempotencyDeps) {
  return function registerIdempotency(app: FastifyInstance): void {
    app.decorateRequest("idempotencyClaim", undefined);

    // A callback hook: requests without the header (most) pass without a promise made for them.
    app.addHook("preHandler", (request, reply, done) => {
      const header = request.headers["idempotency-key"];
      const principal = request.principal;
      if (request.method !== "POST" || header === undefined || !principal) return done();
      claimOrReplay(deps, request, reply, header, principal).then(
        (replayed) => replayed || done(),
        (error: unknown) => done(error as Error),
      );
    });

    // onSend and onResponse are callback hooks: most requests hold no claim, and then no promise is made for them.
    app.addHook("onSend", (request, reply, payload, done) => {
      const claim = takeClaim(request);
      if (!claim) return done(null, payload);
      const body = bytesOf(payload);
      // A string answer goes out as the bytes stored: encoded once, not once for the store and once for the socket.
      settle(deps, request, claim, reply, body).then(() => done(null, typeof payload === "string" ? body : payload));
    });

    // Safety net: a request that ended without onSend (the connection broke first) gives its claim back.
    app.addHook("onResponse", (request, _reply, done) => {
      const claim = takeClaim(request);
      if (!claim) return done();
      deps.records.release(claim.ref, claim.token).then(
        () => done(),
        () => done(),
      );
    });
  };
}

/** Claims the key, or replays the stored answer (true: the reply is sent), or throws the 409 of a reused or busy key. */
async function claimOrReplay(
  deps: IdempotencyDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  header: string | string[],
  principal: Principal,
): Promise<boolean> {
  const { accountId } = principal;
  // Node joins repeated headers of this name with ", ": read them apart, so that a repeat is refused, not merged.
  const key = parseIdempotencyKey(request.raw.headersDistinct["idempotency-key"] ?? header);
  const ref = { accountId, keyHash: idempotencyKeyHash(key) };
  const connectionHeader = request.headers["x-gateway-connection-id"];
  const named = typeof connectionHeader === "string" ? connectionHeader : connectionHeader?.join(", ");
  const fingerprint = requestFingerprint({
    // A replay answers only the caller that made the request: another key of the account (with other scopes, a key it
    // created in the answer) gets 409, as for another request.
    caller: callerOf(principal),
    method: request.method,
    path: request.url,
    // The connection the request runs against: the header's, else the one a delegation token holds server-side.
    connectionId: named || principal.connectionId,
    rawBody: request.rawBody,
  });

  let waiting = false;
  const outcome = await deps.records
    .claimOrWait(ref, fingerprint, deps.waitMs, () => {
      waiting = true;
      deps.metrics.idempotencyWaiting.inc();
    })
    .finally(() => waiting && deps.metrics.idempotencyWaiting.dec());

  switch (outcome.kind) {
    case "claimed": {
      deps.metrics.idempotentRequests.inc({ outcome: "executed" });
      const renewal = setInterval(() => {
        deps.records.renew(ref, outcome.token).catch((error: unknown) => {
          request.log.warn({ err: error, request_id: request.id }, "could not renew an idempotency claim");
        });
      }, deps.records.timings.leaseMs / 3);
      renewal.unref();
      request.idempotencyClaim = { ref, key, token: outcome.token, fingerprint, renewal };
      return false;
    }
    case "completed":
      deps.metrics.idempotentRequests.inc({ outcome: "replayed" });
      replay(reply, outcome.response, key, accountId);
      return true;
    case "reused":
      deps.metrics.idempotentRequests.inc({ outcome: "key_reused" });
      throw new GatewayError("conflict", "This Idempotency-Key was already used for a different request", {
        details: { reason: "idempotency_key_reused" },
        fix: "Reuse a key only to retry the identical request (same method, path, connection and body); use a new key for a new request.",
      });
    case "running":
      deps.metrics.idempotentRequests.inc({ outcome: "in_progress" });
      throw new GatewayError("conflict", "A request with this Idempotency-Key is still running", {
        details: { reason: "idempotency_in_progress" },
        fix: "Retry later with the same key to receive the first request's response.",
      });
  }
}

function takeClaim(request: FastifyRequest): ActiveClaim | undefined {
  const claim = request.idempotencyClaim;
  if (!claim) return undefined;
  request.idempotencyClaim = undefined;
  clearInterval(claim.renewal);
  return claim;
}

/** An answer's bytes; undefined for a stream, whose bytes are never held whole. */
function bytesOf(payload: unknown): Buffer | undefined {
  if (typeof payload === "string") return Buffer.from(payload);
  if (payload == null) return Buffer.alloc(0);
  return Buffer.isBuffer(payload) ? payload : undefined;
}

async function settle(
  deps: IdempotencyDeps,
  request: FastifyRequest,
  claim: ActiveClaim,
  reply: FastifyReply,
  body: Buffer | undefined,
): Promise<void> {
  try {
    if (notExecutedStatuses.has(reply.statusCode) || request.notExecuted || body === undefined) {
      await deps.records.release(claim.ref, claim.token);
      return;
    }
    const contentType = reply.getHeader("content-type");
    const stored = await deps.records.complete(claim, {
      status: reply.statusCode,
      contentType: contentType === undefined ? undefined : String(contentType),
      sealedBody: sealResponse(body, claim.key, claim.ref.accountId),
    });
    if (!stored) request.log.warn({ request_id: request.id }, "idempotency claim was taken over before completion");
  } catch (error) {
    // The operation has run: its answer still goes out. The claim's lease lapses and a retry executes anew.
    request.log.error({ err: error, request_id: request.id }, "could not store the idempotent response");
  }
}

function replay(reply: FastifyReply, response: StoredResponse, key: string, accountId: string): FastifyReply {
  reply.code(response.status).header("idempotent-replayed", "true");
  if (response.contentType !== undefined) reply.header("content-type", response.contentType);
  return reply.send(openResponse(response.sealedBody, key, accountId));
}
