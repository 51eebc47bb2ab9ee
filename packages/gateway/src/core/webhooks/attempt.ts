// One attempt of a claimed delivery, to its endpoint as it is when the attempt starts: signed afresh, POSTed, and its
// outcome written to the attempt log. A delivery whose endpoint is gone ends without an attempt.
import type { Kysely } from "kysely";
import type { Database, WebhookDeliveriesTable } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import type { AttemptLog } from "./attempt-log.ts";
import { endWithoutEndpoint } from "./claim.ts";
import type { WebhookSender } from "./sender.ts";
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
  log: { error(object: object, message: string): void };
}

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
    await deps.attemptLog.record({ delivery, url, attemptedAt, outcome });
  } catch (err) {
    release();
    // The lease runs out and another pass retries: nothing is lost, at worst delivered twice.
    deps.log.error({ err, delivery_id: delivery.id }, "recording a webhook attempt failed");
  }
}
