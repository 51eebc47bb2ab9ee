// The delivery worker: claims due deliveries in batches and hands them to its attempt slots (attempt-slots.ts), which
// read each endpoint's current URL and secrets as an attempt starts, sign afresh, POST, and record the outcome. It runs
// on every node; a recorded event on this node wakes it at once, otherwise it polls. Also purges events and inbound
// hooks past retention.
//
// A node whose master keys the store's records refuse (core/crypto/master-key-watch.ts: a rotation moved the store to
// a key it lacks) cannot open the endpoints' signing secrets: it claims nothing while that lasts, leaving the
// deliveries to nodes that can sign them, rather than claiming and handing them back on every poll.
//
// Each endpoint has a share of the node: `endpointConcurrency` slots, and twice that in claimed deliveries (those under
// way and the next round). A claim passes over the endpoints that hold more than one round, and takes no more rows than
// the endpoints it may return can hold, so a node never claims what it would have to hand back; the oldest due
// deliveries of the other endpoints are claimed instead, and a receiver that hangs with a large backlog takes only its
// own share.
import type { Kysely, QueryResult } from "kysely";
import { PeriodicPurge } from "../../store/batched-purge.ts";
import type { StoreKind } from "../../store/database.ts";
import { precompilePerCount } from "../../store/precompiled.ts";
import type { Database } from "../../store/schema.ts";
import type { Clock } from "../clock.ts";
import type { MasterKeyWatch } from "../crypto/master-key-watch.ts";
import type { Events } from "../events/events.ts";
import { AttemptLog } from "./attempt-log.ts";
import { AttemptSlots } from "./attempt-slots.ts";
import { type ClaimDueDeliveries, claimDueDeliveries, releaseClaims, releaseLeftoverLeases } from "./claim.ts";
import type { WebhookEndpoints } from "./endpoints.ts";
import type { WebhookSender } from "./sender.ts";
import { AttemptTargets } from "./targets.ts";

export interface WorkerOptions {
  pollIntervalMs: number;
  leaseMs: number;
  /** How long an attempt may take (the sender's timeout). */
  timeoutMs: number;
  concurrency: number;
  /** Slots one endpoint may take at once, from 1 to `concurrency`. */
  endpointConcurrency: number;
  userAgent: string;
}

/** What the next claim may take: how many rows, and from which endpoints not. */
interface ClaimPlan {
  limit: number;
  excluded: string[];
}

export interface WorkerDeps {
  db: Kysely<Database>;
  kind: StoreKind;
  clock: Clock;
  events: Events;
  endpoints: WebhookEndpoints;
  sender: WebhookSender;
  log: { error(object: object, message: string): void; info(object: object, message: string): void };
  onAttempt?: ((ok: boolean) => void) | undefined;
  /** Whether this node's master keys open the store's secrets (none: they are not checked while serving). */
  masterKeys?: Pick<MasterKeyWatch, "refused" | "explain"> | undefined;
}

const purgeIntervalMs = 3600_000;
/**
 * After a wake, poll briefly: the waking transaction may not have committed yet. Counted on the monotonic clock: the
 * machine's clock set back would otherwise keep the worker polling for the length of the step.
 */
const wakeWindowMs = 250;
/**
 * The polls of a wake's window come 10 ms after the wake, then 20, 40 and 80 ms apart: a transaction that commits
 * at once is seen within 10 ms, and a wake costs five or six claims, not 25. A claim that passes over an endpoint
 * holding its share reads at most a window of that endpoint's due rows (claim.ts), but when the window holds too few
 * rows to claim, it seeks once per endpoint with pending deliveries.
 */
const wakePollMs = (poll: number) => 10 * 2 ** Math.min(poll, 3);

export class WebhookWorker {
  private readonly claim: ClaimDueDeliveries;
  private readonly eventBodies: (ids: readonly string[]) => Promise<QueryResult<unknown>>;
  private readonly slots: AttemptSlots;
  private running = false;
  private loopDone: Promise<void> | undefined;
  private sleeper: (() => void) | undefined;
  private waitingForRoom = false;
  private lastWakeAt = Number.NEGATIVE_INFINITY;
  /** Polls made since the last wake (their pace slows: wakePollMs). */
  private wakePolls = 0;
  /** Counts the wakes, and the endpoints that came back under their share (either may make a claim find more). */
  private wakes = 0;
  private endpointsFreed = 0;
  /**
   * The last claim that came back short: nothing else was due outside the endpoints it excluded. While no wake came and
   * no poll interval passed, a claim that excludes at least those is not made again: it would only read its window and
   * seek through the endpoints with pending deliveries to find nothing.
   */
  private exhausted: { excluded: ReadonlySet<string>; wakes: number; at: number } | undefined;
  /** Polls that failed in a row (the store unreachable): the first is logged, and the recovery. */
  private claimFailures = 0;
  private purges: PeriodicPurge | undefined;

  constructor(
    private readonly deps: WorkerDeps,
    private readonly options: WorkerOptions,
  ) {
    this.claim = claimDueDeliveries(deps.db, deps.kind);
    // A batch names up to a concurrency's worth of events: the lookup is compiled once per count, not per batch.
    this.eventBodies = precompilePerCount(deps.db, (ids) =>
      deps.db.selectFrom("events").select(["id", "body"]).where("id", "in", ids),
    );
    this.slots = new AttemptSlots({
      attempts: {
        db: deps.db,
        clock: deps.clock,
        sender: deps.sender,
        attemptLog: new AttemptLog(deps.db, deps.clock),
        userAgent: options.userAgent,
        log: deps.log,
        onAttempt: deps.onAttempt,
        stopping: () => !this.running,
      },
      explain: (error) => deps.masterKeys?.explain(error) ?? Promise.resolve(error),
      targets: new AttemptTargets(deps.db, deps.endpoints),
      concurrency: options.concurrency,
      endpointConcurrency: options.endpointConcurrency,
      onSlotFreed: (endpointId) => {
        if (this.waitingForRoom) {
          if (this.mayClaim()) this.sleeper?.();
        } else if (this.slots.heldOf(endpointId) === this.options.endpointConcurrency) {
          // Back to one round held: the endpoint's next deliveries may be claimed.
          this.endpointsFreed++;
          this.sleeper?.();
        }
      },
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // What a claim found before a stop says nothing of what is due now.
    this.exhausted = undefined;
    this.slots.start();
    this.loopDone = this.loop();
    this.purges = new PeriodicPurge(
      {
        event: (stopping) => this.deps.events.purgeExpired(stopping),
        "inbound hook": (stopping) => this.deps.events.purgeInboundHooks(stopping),
      },
      purgeIntervalMs,
      (what, err) => this.deps.log.error({ err }, `${what} purge failed`),
      { immediately: true },
    );
  }

  /** Stops claiming, hands back claims not yet sent, and waits for the attempts under way and their records. */
  async stop(): Promise<void> {
    this.running = false;
    this.slots.halt();
    this.sleeper?.();
    await this.purges?.stop();
    await this.loopDone;
    await this.slots.releaseWaiting();
    await this.slots.settled();
  }

  wake(): void {
    this.lastWakeAt = performance.now();
    this.wakePolls = 0;
    this.wakes++;
    if (!this.waitingForRoom) this.sleeper?.();
  }

  /** Claimed rows may reach twice the concurrency: the attempts being sent and the next batch ready to go. */
  private room(): number {
    return 2 * this.options.concurrency - this.slots.held;
  }

  /**
   * Whether to claim now: room for a whole batch, or a slot free that no claim held can take (their endpoints have their
   * share under way). Each endpoint holding at most twice its share, the latter leaves room for at least one row.
   */
  private mayClaim(): boolean {
    return this.room() >= this.options.concurrency || this.slots.idleSlot;
  }

  /**
   * The next claim: endpoints holding more than one round are excluded, and the limit is what every endpoint the claim
   * may return can still hold (one it holds nothing of can hold two rounds), within the node's room.
   */
  private claimPlan(): ClaimPlan {
    const share = 2 * this.options.endpointConcurrency;
    let limit = Math.min(this.room(), share);
    const excluded: string[] = [];
    for (const [endpointId, held] of this.slots.heldByEndpoint()) {
      if (held > this.options.endpointConcurrency) excluded.push(endpointId);
      else limit = Math.min(limit, share - held);
    }
    return { limit, excluded };
  }

  /** Claims due deliveries as the plan says, reads their events and starts as many as slots allow. */
  async deliverDueWebhooks(plan: ClaimPlan): Promise<number> {
    const claimed = await this.claim({
      now: this.deps.clock.now(),
      // A delivery claimed may wait a round for its slot, up to a timeout (its endpoint's attempts under way, or the
      // node's): its lease counts from its attempt's start, not from the claim, or it would run out while the attempt
      // is under way, another claim would take the delivery, and this attempt's outcome would not count.
      leaseMs: this.options.leaseMs + this.options.timeoutMs,
      limit: plan.limit,
      excludedEndpoints: plan.excluded,
    });
    if (claimed.length === 0) return 0;
    let rows: unknown[];
    try {
      ({ rows } = await this.eventBodies([...new Set(claimed.map((d) => d.event_id))]));
    } catch (err) {
      // Nothing was sent: the claims go back at once (when the store takes that), rather than holding the deliveries
      // for the whole lease. The poll's failure is logged by the loop.
      await releaseClaims(this.deps.db, claimed).catch((error: unknown) =>
        this.deps.log.error({ err: error }, "releasing webhook claims failed"),
      );
      throw err;
    }
    const bodyOf = new Map((rows as { id: string; body: string }[]).map((row) => [row.id, row.body]));
    this.slots.add(claimed.map((delivery) => ({ delivery, body: bodyOf.get(delivery.event_id) })));
    return claimed.length;
  }

  /** Whether the plan's claim would find nothing: the last short claim excluded no more, and nothing new came since. */
  private foundExhausted(plan: ClaimPlan, now: number): boolean {
    const last = this.exhausted;
    if (!last || last.wakes !== this.wakes || now - last.at >= this.options.pollIntervalMs) return false;
    if (now - this.lastWakeAt < wakeWindowMs) return false;
    const excluded = new Set(plan.excluded);
    for (const endpointId of last.excluded) if (!excluded.has(endpointId)) return false;
    return true;
  }

  private async loop(): Promise<void> {
    if (this.deps.kind === "sqlite") {
      await releaseLeftoverLeases(this.deps.db).catch((err: unknown) =>
        this.deps.log.error({ err }, "releasing leases failed"),
      );
    }
    const { pollIntervalMs } = this.options;
    while (this.running) {
      // Claim in batches of a whole concurrency's worth rather than one row per finished attempt: while one batch is
      // sent, the next waits ready.
      if (!this.mayClaim()) {
        // No await between the check and the sleep: a completion cannot slip in between and be missed.
        this.waitingForRoom = true;
        await this.sleep(pollIntervalMs);
        this.waitingForRoom = false;
        continue;
      }
      if (this.deps.masterKeys?.refused) {
        // Its signing secrets do not open here: the deliveries wait for a node that holds the key.
        await this.sleep(pollIntervalMs);
        continue;
      }
      const plan = this.claimPlan();
      const startedAt = performance.now();
      if (this.foundExhausted(plan, startedAt)) {
        // Woken by a wake, an endpoint back under its share, or the poll interval's end.
        await this.sleep((this.exhausted?.at ?? startedAt) + pollIntervalMs - startedAt);
        continue;
      }
      const wakes = this.wakes;
      const endpointsFreed = this.endpointsFreed;
      let claimed: number | undefined;
      try {
        claimed = await this.deliverDueWebhooks(plan);
        if (this.claimFailures > 0) {
          this.deps.log.info({ failed_polls: this.claimFailures }, "claiming webhook deliveries works again");
          this.claimFailures = 0;
        }
      } catch (err) {
        // Said once while it lasts (the store down: every poll fails alike), and again when it ends.
        if (this.claimFailures++ === 0) this.deps.log.error({ err }, "claiming webhook deliveries failed");
      }
      if (!this.running) break;
      // A full claim: more may be due. What an earlier short claim found stays true: these rows were of endpoints it did
      // not exclude, and were claimed.
      if (claimed === plan.limit) continue;
      if (claimed !== undefined) this.exhausted = { excluded: new Set(plan.excluded), wakes, at: startedAt };
      // An endpoint came back under its share while the claim ran: its rows were excluded, and may be due.
      if (this.endpointsFreed !== endpointsFreed) continue;
      const recentlyWoken = performance.now() - this.lastWakeAt < wakeWindowMs;
      await this.sleep(recentlyWoken ? wakePollMs(this.wakePolls++) : pollIntervalMs);
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
