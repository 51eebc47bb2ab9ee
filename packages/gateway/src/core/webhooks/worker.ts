// The delivery worker: claims due deliveries, reads their endpoint's current URL and secrets as each attempt starts,
// signs afresh, POSTs, and records the outcome. It runs on every node; a recorded event on this node wakes it at once,
// otherwise it polls. Also purges events past retention.
import type { Kysely, QueryResult } from "kysely";
import type { StoreKind } from "../../store/database.ts";
import { precompilePerCount } from "../../store/precompiled.ts";
import type { Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import type { Events } from "../events/events.ts";
import { type AttemptDeps, attemptDelivery, type ReadyAttempt } from "./attempt.ts";
import { AttemptLog } from "./attempt-log.ts";
import { type ClaimDueDeliveries, claimDueDeliveries, releaseClaims, releaseLeftoverLeases } from "./claim.ts";
import type { WebhookEndpoints } from "./endpoints.ts";
import type { WebhookSender } from "./sender.ts";
import { type AttemptTarget, AttemptTargets } from "./targets.ts";

export interface WorkerOptions {
  pollIntervalMs: number;
  leaseMs: number;
  concurrency: number;
  userAgent: string;
}

export interface WorkerDeps {
  db: Kysely<Database>;
  kind: StoreKind;
  clock: Clock;
  events: Events;
  endpoints: WebhookEndpoints;
  sender: WebhookSender;
  log: { error(object: object, message: string): void };
}

const purgeIntervalMs = 3600_000;
/** After a wake, poll briefly at this pace: the waking transaction may not have committed yet. */
const wakeWindowMs = 250;

export class WebhookWorker {
  private readonly attemptDeps: AttemptDeps;
  private readonly claim: ClaimDueDeliveries;
  private readonly targets: AttemptTargets;
  private readonly eventBodies: (ids: readonly string[]) => Promise<QueryResult<unknown>>;
  /** Claimed and looked up, waiting for a free slot: the next batch is claimed while the current one is sent. */
  private readonly ready: ReadyAttempt[] = [];
  /** Attempts not yet recorded (stop waits for them). */
  private readonly unfinished = new Set<Promise<void>>();
  /** Slots taken: attempts under way, and those whose endpoint is being read. */
  private sending = 0;
  private lookingUp = false;
  private running = false;
  private loopDone: Promise<void> | undefined;
  private sleeper: (() => void) | undefined;
  private waitingForRoom = false;
  private lastWakeAt = 0;
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: WorkerDeps,
    private readonly options: WorkerOptions,
  ) {
    this.attemptDeps = {
      db: deps.db,
      clock: deps.clock,
      sender: deps.sender,
      attemptLog: new AttemptLog(deps.db, deps.clock),
      userAgent: options.userAgent,
      log: deps.log,
    };
    this.claim = claimDueDeliveries(deps.db, deps.kind);
    this.targets = new AttemptTargets(deps.db, deps.endpoints);
    // A batch names up to a concurrency's worth of events: the lookup is compiled once per count, not per batch.
    this.eventBodies = precompilePerCount(deps.db, (ids) =>
      deps.db.selectFrom("events").select(["id", "body"]).where("id", "in", ids),
    );
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
    const purge = () =>
      this.deps.events.purgeExpired().catch((err: unknown) => this.deps.log.error({ err }, "event purge failed"));
    void purge();
    this.purgeTimer = setInterval(purge, purgeIntervalMs);
    this.purgeTimer.unref();
  }

  /** Stops claiming, hands back claims not yet sent, and waits for the attempts under way and their records. */
  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.purgeTimer);
    this.sleeper?.();
    await this.loopDone;
    const unsent = this.ready.splice(0).map((entry) => entry.delivery);
    await releaseClaims(this.deps.db, unsent).catch((err: unknown) =>
      this.deps.log.error({ err }, "releasing webhook claims failed"),
    );
    await Promise.allSettled([...this.unfinished]);
  }

  wake(): void {
    this.lastWakeAt = Date.now();
    if (!this.waitingForRoom) this.sleeper?.();
  }

  /** Claimed rows may reach twice the concurrency: the attempts being sent and the next batch ready to go. */
  private room(): number {
    return 2 * this.options.concurrency - this.sending - this.ready.length;
  }

  /** Claims up to `limit` due deliveries, reads their events and starts as many as slots allow. */
  async deliverDueWebhooks(limit: number): Promise<number> {
    const claimed = await this.claim({ now: this.deps.clock.now(), leaseMs: this.options.leaseMs, limit });
    if (claimed.length === 0) return 0;
    const { rows } = await this.eventBodies([...new Set(claimed.map((d) => d.event_id))]);
    const bodyOf = new Map((rows as { id: string; body: string }[]).map((row) => [row.id, row.body]));
    for (const delivery of claimed) this.ready.push({ delivery, body: bodyOf.get(delivery.event_id) });
    this.pump();
    return claimed.length;
  }

  /**
   * Fills the free slots. The endpoints of the attempts started together are taken from the targets kept, or read in
   * one lookup when one of them is not kept fresh; one lookup at a time, slots freed meanwhile are filled by the next.
   */
  private pump(): void {
    const free = this.options.concurrency - this.sending;
    if (!this.running || this.lookingUp || free <= 0 || this.ready.length === 0) return;
    const batch = this.ready.splice(0, free);
    this.sending += batch.length;
    const endpointIds = [...new Set(batch.map((entry) => entry.delivery.endpoint_id))];
    const now = this.deps.clock.now();
    const kept = this.targets.fresh(endpointIds, now);
    if (kept) {
      this.startAll(batch, kept);
      return;
    }
    this.lookingUp = true;
    const started = this.targets
      .lookup(endpointIds, now)
      .then(
        (targets) => {
          // Stopped meanwhile: these were not sent, so they go back like the other unsent claims.
          if (!this.running) return this.handBack(batch);
          this.startAll(batch, targets);
        },
        (err: unknown) => {
          this.deps.log.error({ err }, "reading webhook endpoints failed");
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

  private async handBack(batch: readonly ReadyAttempt[]): Promise<void> {
    const deliveries = batch.map((entry) => entry.delivery);
    await releaseClaims(this.deps.db, deliveries).catch((err: unknown) =>
      this.deps.log.error({ err }, "releasing webhook claims failed"),
    );
    for (const _ of batch) this.slotFreed();
  }

  private track(work: Promise<void>): void {
    this.unfinished.add(work);
    void work.finally(() => this.unfinished.delete(work));
  }

  private slotFreed(): void {
    this.sending--;
    this.pump();
    if (this.waitingForRoom && this.room() >= this.options.concurrency) this.sleeper?.();
  }

  /** One attempt; its slot is freed once the receiver answered (or no attempt is made), before the outcome is written. */
  private attempt(ready: ReadyAttempt, target: AttemptTarget | undefined): Promise<void> {
    let released = false;
    return attemptDelivery(this.attemptDeps, ready, target, () => {
      if (!released) this.slotFreed();
      released = true;
    });
  }

  private async loop(): Promise<void> {
    if (this.deps.kind === "sqlite") {
      await releaseLeftoverLeases(this.deps.db).catch((err: unknown) =>
        this.deps.log.error({ err }, "releasing leases failed"),
      );
    }
    const { concurrency, pollIntervalMs } = this.options;
    while (this.running) {
      const room = this.room();
      // Claim in batches of a whole concurrency's worth rather than one row per finished attempt: while one batch is
      // sent, the next waits ready.
      if (room < concurrency) {
        // No await between the check and the sleep: a completion cannot slip in between and be missed.
        this.waitingForRoom = true;
        await this.sleep(pollIntervalMs);
        this.waitingForRoom = false;
        continue;
      }
      let claimed = 0;
      try {
        claimed = await this.deliverDueWebhooks(room);
      } catch (err) {
        this.deps.log.error({ err }, "claiming webhook deliveries failed");
      }
      if (!this.running) break;
      // Claimed something: more may be due.
      if (claimed > 0) continue;
      const recentlyWoken = Date.now() - this.lastWakeAt < wakeWindowMs;
      await this.sleep(recentlyWoken ? 10 : pollIntervalMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.sleeper = () => {
        this.sleeper = undefined;
        done();
      };
    });
  }
}
