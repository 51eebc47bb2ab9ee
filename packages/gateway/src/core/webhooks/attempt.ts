// One attempt of a claimed delivery, to its endpoint as it is when the attempt starts: signed afresh, POSTed, and its
// outcome written to the attempt log. A delivery whose endpoint is gone ends without an attempt.
import type { Kysely } from "kysely";
import type { Database, WebhookDeliveriesTable } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import type { AttemptLog, Completion } from "./attempt-log.ts";
import { endWithoutEndpoint } from "./claim.ts";
import type { AttemptOutcome, WebhookSender } from "./sender.ts";
import { signatureHeader } from "./signature.ts";
import type { AttemptTarget } from "./targets.ts";

/** A claimed delivery with its event's body (undefined when the event is gone). */
export interface ReadyAttempt {
  delivery: WebhookDeliveriesTable;
  body: string | undefined;
}

export interface AttemptDeps {
  db: Kysely<Database>;
  clock: Clock;
  sender: WebhookSender;
  attemptLog: AttemptLog;
  userAgent: string;
  log: { error(object: object, message: string): void; info(object: object, message: string): void };
  /** Told of every attempt made, once the receiver answered or failed to. */
  onAttempt?: ((ok: boolean) => void) | undefined;
  /** Whether the worker is stopping: an outcome the store refuses is then not written again. */
  stopping(): boolean;
}

const recordRetryMaxMs = 1_000;

/** Makes the attempt; `release` is called once the receiver has answered (or when no attempt is made). */
export async function attemptDelivery(
  deps: AttemptDeps,
  { delivery, body }: ReadyAttempt,
  target: AttemptTarget | undefined,
  release: () => void,
): Promise<void> {
  const attemptedAt = deps.clock.now();
  try {
    if (target === undefined) {
      // Deleted since the claim: no attempt (the deletion ended its pending deliveries as failed).
      release();
      await endWithoutEndpoint(deps.db, delivery, attemptedAt);
      return;
    }
    const { url, secrets } = target;
    if (body === undefined) {
      release();
      const error = "the event no longer exists";
      const outcome = { ok: false, statusCode: null, latencyMs: 0, error, responseBody: null };
      await deps.attemptLog.record({ delivery, url, attemptedAt, outcome, final: true });
      return;
    }
    const headers = {
      "Content-Type": "application/json",
      "Gateway-Event-Id": delivery.event_id,
      "Gateway-Signature": signatureHeader(body, secrets, attemptedAt),
      "Gateway-Delivery-Attempt": String(delivery.attempt_count),
      "User-Agent": deps.userAgent,
    };
    const outcome = await deps.sender.send(url, headers, body);
    release();
    deps.onAttempt?.(outcome.ok);
    if (!outcome.ok) logFailedAttempt(deps, delivery, outcome);
    await recordWhileLeased(deps, { delivery, url, attemptedAt, outcome });
  } catch (err) {
    release();
    // The lease runs out and another pass retries: nothing is lost, at worst delivered twice.
    deps.log.error({ err, delivery_id: delivery.id }, "recording a webhook attempt failed");
  }
}

/**
 * A receiver that fails is the tenant's to mend (the attempt is retried on the schedule), so this is info, not an
 * error; it lets an operator answer "where are my webhooks?" from the log. Not the URL, nor the text of an HTTP
 * failure (a redirect's Location): either may carry a token of the tenant's.
 */
function logFailedAttempt(deps: AttemptDeps, delivery: WebhookDeliveriesTable, outcome: AttemptOutcome): void {
  deps.log.info(
    {
      delivery_id: delivery.id,
      event_id: delivery.event_id,
      account: delivery.account_id,
      endpoint_id: delivery.endpoint_id,
      attempt: delivery.attempt_count,
      status_code: outcome.statusCode,
      latency_ms: outcome.latencyMs,
      ...(outcome.statusCode === null && { error: outcome.error }),
    },
    "webhook attempt failed",
  );
}

/**
 * Records the outcome of an attempt the receiver answered. While the store refuses the write (down, or not answering
 * in time), it is tried again, 50 ms later, then doubling to once a second, for as long as the lease is this node's
 * and the worker runs: an outcome given up on would have the event sent again when the lease runs out, though the
 * receiver has it.
 */
async function recordWhileLeased(deps: AttemptDeps, completion: Completion): Promise<void> {
  const { delivery } = completion;
  // What is left of the lease, counted down in the process's own time (the injected clock may stand still).
  const leaseLeftMs = (delivery.lease_until ?? 0) - deps.clock.now();
  const started = performance.now();
  for (let delay = 50, tries = 1; ; delay = Math.min(delay * 2, recordRetryMaxMs), tries++) {
    try {
      await deps.attemptLog.record(completion);
      if (tries > 1) deps.log.info({ delivery_id: delivery.id, tries }, "recorded the webhook attempt");
      return;
    } catch (err) {
      // A node that is stopping does not wait for the store: the delivery is sent again once its lease runs out.
      if (deps.stopping() || performance.now() - started + delay >= leaseLeftMs) throw err;
      if (tries === 1) {
        deps.log.error({ err, delivery_id: delivery.id }, "recording a webhook attempt failed; recording it again");
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
