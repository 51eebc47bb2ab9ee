// Idempotency-Key on every POST under /v1, one mechanism for operations, platform operations and resource
// aliases: a preHandler (after authentication and body parsing) claims the key or replays the stored response, and
// onSend stores the serialized response of the request that held the claim, byte for byte.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { callerOf, type Principal } from "../../core/api-keys.ts";
import { GatewayError } from "../../core/errors.ts";
import {
  idempotencyKeyHash,
  parseIdempotencyKey,
  requestFingerprint,
  upstreamIdempotencyKey,
} from "../../core/idempotency/key.ts";
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
  /** The keys the request's state-changing provider calls carry (core/idempotency/key.ts upstreamIdempotencyKey). */
  upstreamKey: (call: number) => string;
  /** A takeover of a run of this use of the key that stopped mid-request (it may have acted at the provider). */
  resumed: boolean;
}

export interface IdempotencyDeps {
  records: IdempotencyRecords;
  /** How long a repeat waits for the first request under its key to finish before 409 (default 10 s). */
  waitMs: number;
  metrics: Pick<Metrics, "idempotentRequests" | "idempotencyWaiting">;
}

/**
 * Answers that mean nothing was executed: the claim is released and the key stays free. An error the provider answered
 * (`request.notExecuted` false) ran the operation, whatever its status.
 */
const notExecutedStatuses = new Set([400, 401, 403, 429]);

export function idempotency(deps: IdempotencyDeps) {
  return function registerIdempotency(app: FastifyInstance): void {
    app.decorateRequest("idempotencyClaim", undefined);
    // Answers the store did not take when they were sent, stored again until it does (storeLater); shutting down
    // waits for them, within the shutdown's own deadline.
    const storing = new Set<Promise<void>>();
    app.addHook("onClose", async () => {
      await Promise.all(storing);
    });

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
      settle(deps, request, claim, reply, body, storing).then(() =>
        done(null, typeof payload === "string" ? body : payload),
      );
    });

    // Safety net: a request that ended without onSend (the connection broke first) gives its claim back.
    app.addHook("onResponse", (request, _reply, done) => {
      const claim = takeClaim(request);
      if (!claim) return done();
      clearInterval(claim.renewal);
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
    .claimOrWait(
      ref,
      fingerprint,
      deps.waitMs,
      () => {
        waiting = true;
        deps.metrics.idempotencyWaiting.inc();
      },
      () => request.raw.socket?.destroyed ?? true,
    )
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
      const { token, since, resumed } = outcome;
      const upstreamKey = (call: number) => upstreamIdempotencyKey(ref, since, call);
      request.idempotencyClaim = { ref, key, token, fingerprint, renewal, upstreamKey, resumed };
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
  storing: Set<Promise<void>>,
): Promise<void> {
  if ((request.notExecuted ?? notExecutedStatuses.has(reply.statusCode)) || body === undefined) {
    clearInterval(claim.renewal);
    // Nothing ran: the key is free again at once, or when the lease lapses if the store does not answer now.
    await deps.records.release(claim.ref, claim.token).catch((error: unknown) => {
      request.log.warn({ err: error, request_id: request.id }, "could not release an idempotency claim");
    });
    return;
  }
  const contentType = reply.getHeader("content-type");
  const response: StoredResponse = {
    status: reply.statusCode,
    contentType: contentType === undefined ? undefined : String(contentType),
    sealedBody: sealResponse(body, claim.key, claim.ref.accountId),
  };
  const failure = await store(deps, request, claim, response);
  if (failure === undefined) return clearInterval(claim.renewal);
  // The operation has run, and its answer goes out now. The claim stays held (and renewed) while the answer is
  // stored again, so that a retry waits for it, or gets 409 in progress, rather than running the operation again.
  request.log.error(
    { err: failure, request_id: request.id },
    "could not store the idempotent response; storing it again while its claim is held",
  );
  const later: Promise<void> = storeLater(deps, request, claim, response).finally(() => {
    clearInterval(claim.renewal);
    storing.delete(later);
  });
  storing.add(later);
}

/** Stores the answer; answers the store's error if it failed (a claim taken over meanwhile is not a failure). */
async function store(
  deps: IdempotencyDeps,
  request: FastifyRequest,
  claim: ActiveClaim,
  response: StoredResponse,
): Promise<unknown> {
  try {
    const stored = await deps.records.complete(claim, response);
    if (!stored) request.log.warn({ request_id: request.id }, "idempotency claim was taken over before completion");
    return undefined;
  } catch (error) {
    return error ?? new Error("the store failed");
  }
}

const storeRetryMaxMs = 1_000;

/**
 * Tries again until the store takes the answer, at most a second apart once the first tries failed: when the store
 * comes back after an outage longer than the lease, a retry of the client's may take the lapsed claim over first, and
 * the sooner this lands, the smaller that window.
 */
async function storeLater(
  deps: IdempotencyDeps,
  request: FastifyRequest,
  claim: ActiveClaim,
  response: StoredResponse,
): Promise<void> {
  for (let delay = 50, tries = 2; ; delay = Math.min(delay * 2, storeRetryMaxMs), tries++) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    if ((await store(deps, request, claim, response)) === undefined) {
      request.log.info({ request_id: request.id, tries }, "stored the idempotent response");
      return;
    }
  }
}

function replay(reply: FastifyReply, response: StoredResponse, key: string, accountId: string): FastifyReply {
  reply.code(response.status).header("idempotent-replayed", "true");
  if (response.contentType !== undefined) reply.header("content-type", response.contentType);
  return reply.send(openResponse(response.sealedBody, key, accountId));
}
