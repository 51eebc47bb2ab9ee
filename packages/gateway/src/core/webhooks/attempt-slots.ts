// The delivery worker's sending side: claimed deliveries wait in a queue for one of `concurrency` slots. The endpoints
// of the attempts started together are taken from the targets kept, or read in one lookup when one of them is not kept
// fresh; one lookup at a time, and slots freed meanwhile are filled by the next. A slot is freed once the receiver has
// answered (or no attempt is made), before the outcome is written.
import { type AttemptDeps, attemptDelivery, type ReadyAttempt } from "./attempt.ts";
import { releaseClaims } from "./claim.ts";
import type { AttemptTarget, AttemptTargets } from "./targets.ts";

export interface AttemptSlotsDeps {
  /** What each attempt needs; its store and log are the slots' too. */
  attempts: AttemptDeps;
  targets: AttemptTargets;
  concurrency: number;
  /** Called each time a slot is freed (the worker then claims more once there is room). */
  onSlotFreed(): void;
}

export class AttemptSlots {
  /** Claimed and looked up, waiting for a free slot: the next batch is claimed while the current one is sent. */
  private readonly ready: ReadyAttempt[] = [];
  /** Attempts not yet recorded (the worker's stop waits for them). */
  private readonly unfinished = new Set<Promise<void>>();
  /** Slots taken: attempts under way, and those whose endpoint is being read. */
  private sending = 0;
  private lookingUp = false;
  private running = false;

  constructor(private readonly deps: AttemptSlotsDeps) {}

  /** Claimed deliveries held: the attempts under way and those waiting for a slot. */
  get held(): number {
    return this.sending + this.ready.length;
  }

  add(attempts: readonly ReadyAttempt[]): void {
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
    return this.release(this.ready.splice(0));
  }

  /** Settles once every attempt started has been recorded. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.unfinished]);
  }

  private pump(): void {
    const free = this.deps.concurrency - this.sending;
    if (!this.running || this.lookingUp || free <= 0 || this.ready.length === 0) return;
    const batch = this.ready.splice(0, free);
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
        (err: unknown) => {
          this.deps.attempts.log.error({ err }, "reading webhook endpoints failed");
          return this.handBack(batch);
        },
      )
      .finally(() => {
        this.lookingUp = false;
        this.pump();
      });
    this.track(started);
  }

  private startAll(batch: readonly ReadyAttempt[], targets: Map<string, AttemptTarget>): void {
    for (const entry of batch) this.track(this.attempt(entry, targets.get(entry.delivery.endpoint_id)));
  }

  /** Hands back claims that took a slot but were not sent, and frees their slots. */
  private async handBack(batch: readonly ReadyAttempt[]): Promise<void> {
    await this.release(batch);
    for (const _ of batch) this.slotFreed();
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

  private slotFreed(): void {
    this.sending--;
    this.pump();
    this.deps.onSlotFreed();
  }

  private attempt(ready: ReadyAttempt, target: AttemptTarget | undefined): Promise<void> {
    let released = false;
    return attemptDelivery(this.deps.attempts, ready, target, () => {
      if (!released) this.slotFreed();
      released = true;
    });
  }
}
