// The delivery worker's sending side: claimed deliveries wait in a queue for one of `concurrency` slots, oldest claim
// first, and an endpoint takes at most `endpointConcurrency` of them: a delivery whose endpoint has that many attempts
// under way waits without holding back the deliveries to other endpoints behind it, so a receiver that hangs delays
// only its own. The endpoints of the attempts started together are taken from the targets kept, or read in one lookup
// when one of them is not kept fresh; one lookup at a time, and slots freed meanwhile are filled by the next. A slot is
// freed once the receiver has answered (or no attempt is made), before the outcome is written.
import { GatewayError } from "../errors.ts";
import { type AttemptDeps, attemptDelivery, type ReadyAttempt } from "./attempt.ts";
import { releaseClaims } from "./claim.ts";
import type { AttemptTarget, AttemptTargets } from "./targets.ts";

export interface AttemptSlotsDeps {
  /** What each attempt needs; its store and log are the slots' too. */
  attempts: AttemptDeps;
  targets: AttemptTargets;
  /** What a lookup's failure means on this node: a refusal of its master keys is said once, by the watch. */
  explain(error: unknown): Promise<unknown>;
  concurrency: number;
  /** Slots one endpoint may take at once. */
  endpointConcurrency: number;
  /** Called each time a slot is freed, with its delivery's endpoint (the worker then claims more once there is room). */
  onSlotFreed(endpointId: string): void;
}

export class AttemptSlots {
  /** Claimed and looked up, waiting for a free slot: the next batch is claimed while the current one is sent. */
  private readonly ready: ReadyAttempt[] = [];
  /** Attempts not yet recorded (the worker's stop waits for them). */
  private readonly unfinished = new Set<Promise<void>>();
  /** Slots taken: attempts under way, and those whose endpoint is being read. */
  private sending = 0;
  /** Per endpoint: the slots it takes, and the claims held (those, and those waiting in `ready`). */
  private readonly sendingTo = new Map<string, number>();
  private readonly heldFor = new Map<string, number>();
  private lookingUp = false;
  private running = false;

  constructor(private readonly deps: AttemptSlotsDeps) {}

  /** Claimed deliveries held: the attempts under way and those waiting for a slot. */
  get held(): number {
    return this.sending + this.ready.length;
  }

  /** Claimed deliveries held for each endpoint that has any. */
  heldByEndpoint(): ReadonlyMap<string, number> {
    return this.heldFor;
  }

  /**
   * Whether a slot is free that no claim held can take: each one waiting is to an endpoint with its share under way
   * (receivers that hang, say). The worker then claims for other endpoints though its claims leave less than a batch's
   * room: they would otherwise wait for one of those attempts to end, up to a timeout, beside an idle slot.
   */
  get idleSlot(): boolean {
    const { concurrency, endpointConcurrency } = this.deps;
    if (this.sending >= concurrency) return false;
    return this.ready.every(({ delivery }) => (this.sendingTo.get(delivery.endpoint_id) ?? 0) >= endpointConcurrency);
  }

  heldOf(endpointId: string): number {
    return this.heldFor.get(endpointId) ?? 0;
  }

  add(attempts: readonly ReadyAttempt[]): void {
    for (const { delivery } of attempts) increment(this.heldFor, delivery.endpoint_id, 1);
    this.ready.push(...attempts);
    this.pump();
  }

  /** Starts attempts from now on (the worker's start). */
  start(): void {
    this.running = true;
    this.pump();
  }

  /** Starts no further attempt; those under way go on. */
  halt(): void {
    this.running = false;
  }

  /** Hands back the claims still waiting for a slot (after `halt`), for another worker to take. */
  releaseWaiting(): Promise<void> {
    const waiting = this.ready.splice(0);
    for (const { delivery } of waiting) increment(this.heldFor, delivery.endpoint_id, -1);
    return this.release(waiting);
  }

  /** Settles once every attempt started has been recorded. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.unfinished]);
  }

  private pump(): void {
    const free = this.deps.concurrency - this.sending;
    if (!this.running || this.lookingUp || free <= 0 || this.ready.length === 0) return;
    const batch = this.takeStartable(free);
    if (batch.length === 0) return;
    this.sending += batch.length;
    const endpointIds = [...new Set(batch.map((entry) => entry.delivery.endpoint_id))];
    const now = this.deps.attempts.clock.now();
    const kept = this.deps.targets.fresh(endpointIds, now);
    if (kept) {
      this.startAll(batch, kept);
      return;
    }
    this.lookingUp = true;
    const started = this.deps.targets
      .lookup(endpointIds, now)
      .then(
        (targets) => {
          // Halted meanwhile: these were not sent, so they go back like the other unsent claims.
          if (!this.running) return this.handBack(batch);
          this.startAll(batch, targets);
        },
        async (err: unknown) => {
          // Handed back uncounted either way: a secret this node cannot open leaves the delivery to a node that can.
          const explained = await this.deps.explain(err);
          if (!(explained instanceof GatewayError && explained.logged)) {
            this.deps.attempts.log.error({ err }, "reading webhook endpoints failed");
          }
          return this.handBack(batch);
        },
      )
      .finally(() => {
        this.lookingUp = false;
        this.pump();
      });
    this.track(started);
  }

  /**
   * Takes up to `free` deliveries from `ready`, oldest first, skipping those whose endpoint has all its slots; those
   * keep their place. Counts the slots taken.
   */
  private takeStartable(free: number): ReadyAttempt[] {
    const { endpointConcurrency } = this.deps;
    const batch: ReadyAttempt[] = [];
    const skipped: ReadyAttempt[] = [];
    let index = 0;
    for (; index < this.ready.length && batch.length < free; index++) {
      const entry = this.ready[index] as ReadyAttempt;
      const endpointId = entry.delivery.endpoint_id;
      if ((this.sendingTo.get(endpointId) ?? 0) >= endpointConcurrency) {
        skipped.push(entry);
        continue;
      }
      increment(this.sendingTo, endpointId, 1);
      batch.push(entry);
    }
    // The entries looked at leave the queue but those skipped, which go back at its head in their order.
    this.ready.splice(0, index, ...skipped);
    return batch;
  }

  private startAll(batch: readonly ReadyAttempt[], targets: Map<string, AttemptTarget>): void {
    for (const entry of batch) this.track(this.attempt(entry, targets.get(entry.delivery.endpoint_id)));
  }

  /** Hands back claims that took a slot but were not sent, and frees their slots. */
  private async handBack(batch: readonly ReadyAttempt[]): Promise<void> {
    await this.release(batch);
    for (const entry of batch) this.slotFreed(entry.delivery.endpoint_id);
  }

  private async release(batch: readonly ReadyAttempt[]): Promise<void> {
    const { db, log } = this.deps.attempts;
    const deliveries = batch.map((entry) => entry.delivery);
    await releaseClaims(db, deliveries).catch((err: unknown) => log.error({ err }, "releasing webhook claims failed"));
  }

  private track(work: Promise<void>): void {
    this.unfinished.add(work);
    void work.finally(() => this.unfinished.delete(work));
  }

  private slotFreed(endpointId: string): void {
    this.sending--;
    increment(this.sendingTo, endpointId, -1);
    increment(this.heldFor, endpointId, -1);
    this.pump();
    this.deps.onSlotFreed(endpointId);
  }

  private attempt(ready: ReadyAttempt, target: AttemptTarget | undefined): Promise<void> {
    let released = false;
    return attemptDelivery(this.deps.attempts, ready, target, () => {
      if (!released) this.slotFreed(ready.delivery.endpoint_id);
      released = true;
    });
  }
}

/** Adds `by` to an endpoint's count; a count back at zero is dropped, so the maps hold only endpoints in use. */
function increment(counts: Map<string, number>, endpointId: string, by: number): void {
  const count = (counts.get(endpointId) ?? 0) + by;
  if (count === 0) counts.delete(endpointId);
  else counts.set(endpointId, count);
}
