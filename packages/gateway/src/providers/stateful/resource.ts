// Stateful provider resources (reservations, waitlist entries, orders, rides, payments). A provider declares each kind
// once with `defineStatefulResource`: its one mapping from the upstream's native shape to the API object, the
// upstream's id and revision, the legal transitions and the events a change causes. The answer is a set of helpers
// that keep the gateway's copy (core/resources) and record the events in the same transaction, whether a change
// arrives as the answer to a call or as a hook, so that every event's `data.object` is what get_… answers.

import type { TSchema } from "@sinclair/typebox";
import { GatewayError, invalidRequest, notFound } from "../../core/errors.ts";
import type { StoreExecutor } from "../../core/events/events.ts";
import { newId } from "../../core/ids.ts";
import { printable } from "../../core/printable.ts";
import type { ResourceCopy } from "../../core/resources/resource-copies.ts";
import type { CoreServices } from "../../core/services.ts";
import type { HookContext, HookResult, OperationContext } from "../types.ts";
import { checkShape, UnreadableAnswer } from "../upstream.ts";

/** What every stateful API object has. */
export interface StatefulObject {
  id: string;
  status: string;
}

export interface StatefulResourceSpec<N, O extends StatefulObject> {
  /** Stored with each copy and used in messages, e.g. "reservation", "waitlist_entry". */
  kind: string;
  /** Prefix of the gateway's ids of this kind, e.g. "rsv" gives `rsv_` + 22 base62 characters. */
  idPrefix: string;
  /** The upstream's schema of a native resource: what a hook pushes is checked against it before anything else. */
  native: TSchema;
  /** The upstream's own id in a native resource (hooks name it). */
  upstreamId(native: N): string;
  /** A number the upstream raises with every change (a revision, or an updated-at in ms): older states are ignored. */
  revision(native: N): number;
  /** The upstream's state of the resource now, read with the caller's credentials. */
  fetch(ctx: OperationContext, upstreamId: string): Promise<N>;
  /** THE mapping: the API object get_… answers, events carry and the copy stores. Pure of everything but its input. */
  toObject(native: N, id: string): O;
  /**
   * The API object's schema (get_…'s output). What toObject made of an answer or a hook is checked against it before
   * it is stored or announced: a provider's answer can pass its own schema and still map to what the API never answers
   * (a date in the year 20000), which must not be kept, nor sent in an event.
   */
  schema: TSchema;
  /** Status → statuses a caller's action may move it to; `transition` refuses the others with 409 conflict. */
  transitions: Readonly<Record<string, readonly string[]>>;
  /** The gateway event types a change from `before` to `after` causes (each recorded with `after`). */
  events(before: O, after: O): readonly string[];
}

export interface StatefulResource<N, O extends StatefulObject> {
  readonly spec: StatefulResourceSpec<N, O>;
  /** Records the resource an upstream call just created for the caller; answers the API object of that answer. */
  created(ctx: OperationContext, native: N): Promise<O>;
  /** The caller's copy, without calling the upstream; 404 for unknown ids and other accounts' alike. */
  load(ctx: OperationContext, id: string): Promise<ResourceCopy & { object: O }>;
  /** For get_…: 404 as `load`, else fetches the upstream's state, brings the copy forward, answers the copy. */
  refresh(ctx: OperationContext, id: string): Promise<O>;
  /** For a caller's action (cancel, leave, refund): 404 as `load`, 409 when `to` is not reachable from the copy's
   * status (for a copy made through the caller's connection; another connection's copy goes to the upstream, which
   * decides), else runs `call` at the upstream and applies its answer. When the upstream answers a conflict (another
   * action got there first), the copy is brought forward to the upstream's state, and the 409 is the gateway's own if
   * that state cannot become `to`: the same answer as when the copy had shown it already. */
  transition(
    ctx: OperationContext,
    id: string,
    to: string,
    call: (upstreamId: string, current: O) => Promise<N>,
  ): Promise<O>;
  /**
   * For handleHook: applies a native state pushed by the upstream, in the hook's transaction. What the hook carries is
   * checked against `native` first, and what it maps to against `schema`: either failing is a 400 that keeps nothing.
   */
  fromHook(ctx: HookContext, pushed: unknown): Promise<HookResult>;
}

/** How often a compare-and-set is retried against concurrent writers of the same copy before giving up. */
const maxAttempts = 5;
/** Copies made from hooks that no call ever claimed (resources created outside the gateway) are dropped after this. */
const orphanRetentionMs = 24 * 3600 * 1000;

export function defineStatefulResource<N, O extends StatefulObject>(
  spec: StatefulResourceSpec<N, O>,
): StatefulResource<N, O> {
  const noun = spec.kind.replaceAll("_", " ");
  /** toObject, checked: an UnreadableAnswer (a 502 for a call) when the object is not what the API answers. */
  const toObject = (native: N, id: string): O => {
    let object: O;
    try {
      object = spec.toObject(native, id);
    } catch (error) {
      // A value the mapping cannot read though its schema let it through (a date that is no date): the same
      // refusal as an object that does not match the API's schema, a 502 for a call and a 400 for a hook.
      if (!(error instanceof RangeError || error instanceof TypeError)) throw error;
      throw new UnreadableAnswer(`The ${noun} could not be made of the provider's answer: ${error.message}`);
    }
    checkShape(spec.schema, object, `The ${noun} made of the provider's answer`);
    return object;
  };
  const ref = (providerId: string) => ({ providerId, kind: spec.kind });
  const record = (object: O) => ({ ...object }) as Record<string, unknown>;
  const state = (object: O, revision: number) => ({ status: object.status, object: record(object), revision });

  async function recordEvents(trx: StoreExecutor, core: CoreServices, accountId: string, before: O, after: O) {
    for (const type of spec.events(before, after)) {
      await core.events.record(trx, { accountId, type, object: record(after) });
    }
  }

  /** Brings `copy` forward to `native` unless the copy is as new already; answers the copy's object afterwards. */
  async function apply(trx: StoreExecutor, core: CoreServices, copy: ResourceCopy, native: N): Promise<O> {
    const revision = spec.revision(native);
    let current: ResourceCopy | undefined = copy;
    for (let attempt = 0; attempt < maxAttempts && current; attempt++) {
      if (revision <= current.revision) return current.object as O;
      const after = toObject(native, current.id);
      const next =
        current.accountId === null
          ? { ...state(after, revision), unowned: current.unownedHistory }
          : state(after, revision);
      if (await core.resources.compareAndSet(trx, current.id, current.revision, next)) {
        if (current.accountId !== null) await recordEvents(trx, core, current.accountId, current.object as O, after);
        return after;
      }
      current = await core.resources.findByUpstreamId(trx, { ...ref(copy.providerId), upstreamId: copy.upstreamId });
    }
    throw new GatewayError("internal_error", `The ${noun} ${copy.id} kept changing while it was being updated`);
  }

  /**
   * A copy made from hooks before the creating call: the call takes it over and records what it missed, each change
   * the hooks brought after the state it answered, in order (a reservation confirmed, then cancelled: both events).
   */
  async function adopt(trx: StoreExecutor, ctx: OperationContext, orphan: ResourceCopy, native: N): Promise<boolean> {
    const answered = toObject(native, orphan.id);
    const revision = spec.revision(native);
    const owner = { accountId: ctx.accountId, connectionId: ctx.connection?.id ?? null };
    const newer = orphan.revision >= revision;
    const next = newer
      ? { status: orphan.status, object: orphan.object, revision: orphan.revision }
      : state(answered, revision);
    if (!(await ctx.core.resources.compareAndSet(trx, orphan.id, orphan.revision, { ...next, owner }))) return false;
    let before = answered;
    for (const missed of orphan.unownedHistory.filter((entry) => entry.revision > revision)) {
      await recordEvents(trx, ctx.core, ctx.accountId, before, missed.object as O);
      before = missed.object as O;
    }
    return true;
  }

  const illegalTransition = (id: string, status: string, to: string) =>
    new GatewayError("conflict", `The ${noun} ${id} is ${status}: it cannot become ${to}`, {
      details: { reason: "illegal_transition", status, requested: to },
      fix: `Read the ${noun} again and act on its current status.`,
    });

  /** For handleHook: applies a native state pushed by the upstream, in the hook's transaction. */
  async function applyHook(ctx: HookContext, native: N): Promise<HookResult> {
    const upstreamId = spec.upstreamId(native);
    const { resources } = ctx.core;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const existing = await resources.findByUpstreamId(ctx.trx, { ...ref(ctx.providerId), upstreamId });
      if (existing) {
        await apply(ctx.trx, ctx.core, existing, native);
        return {};
      }
      const object = toObject(native, newId(spec.idPrefix));
      await resources.purgeOrphans(ctx.trx, ref(ctx.providerId), ctx.clock.now() - orphanRetentionMs);
      const orphan = { ...ref(ctx.providerId), id: object.id, upstreamId, accountId: null, connectionId: null };
      if (await resources.insert(ctx.trx, { ...orphan, ...state(object, spec.revision(native)) })) return {};
    }
    throw new GatewayError("internal_error", `The ${noun} pushed by ${ctx.providerId} could not be recorded`);
  }

  return {
    spec,

    async created(ctx, native) {
      const upstreamId = spec.upstreamId(native);
      const { resources } = ctx.core;
      return ctx.core.store.db.transaction().execute(async (trx) => {
        for (let attempt = 0; attempt < maxAttempts; attempt++) {
          const existing = await resources.findByUpstreamId(trx, { ...ref(ctx.providerId), upstreamId });
          if (!existing) {
            const object = toObject(native, newId(spec.idPrefix));
            const inserted = await resources.insert(trx, {
              ...ref(ctx.providerId),
              id: object.id,
              upstreamId,
              accountId: ctx.accountId,
              connectionId: ctx.connection?.id ?? null,
              ...state(object, spec.revision(native)),
            });
            if (inserted) return object;
            continue;
          }
          if (existing.accountId === null) {
            if (await adopt(trx, ctx, existing, native)) return toObject(native, existing.id);
            continue;
          }
          if (existing.accountId !== ctx.accountId) {
            throw new GatewayError(
              "internal_error",
              `The ${ctx.providerId} provider answered another account's ${noun}`,
            );
          }
          // The upstream answered a resource the gateway already knows (a create it deduplicated itself).
          return apply(trx, ctx.core, existing, native);
        }
        throw new GatewayError("internal_error", `The new ${noun} could not be recorded`);
      });
    },

    async load(ctx, id) {
      const copy = await ctx.core.resources.find(ctx.core.store.db, {
        ...ref(ctx.providerId),
        accountId: ctx.accountId,
        id,
      });
      if (!copy) throw notFound(`There is no ${noun} ${printable(id)}`);
      return copy as ResourceCopy & { object: O };
    },

    async refresh(ctx, id) {
      const copy = await this.load(ctx, id);
      const native = await spec.fetch(ctx, copy.upstreamId);
      return ctx.core.store.db.transaction().execute((trx) => apply(trx, ctx.core, copy, native));
    },

    async transition(ctx, id, to, call) {
      const copy = await this.load(ctx, id);
      // A copy made through another connection of the account is the upstream's to judge: only it knows whether the
      // caller's account there owns the resource (the same customer connected again) or not (another customer, refused
      // with 404 before the copy's status could show).
      const throughCaller = copy.connectionId === (ctx.connection?.id ?? null);
      // A takeover of a run that stopped mid-request may find the copy already where that run's call took it (the
      // upstream's hook told the gateway): the upstream judges the call again, which one that honours the derived
      // Idempotency-Key answers as the first time, and one that does not refuses as a repeat (409, below).
      const madeByStoppedRun = ctx.resumed && copy.status === to;
      if (throughCaller && !madeByStoppedRun && !spec.transitions[copy.status]?.includes(to)) {
        throw illegalTransition(id, copy.status, to);
      }
      let native: N;
      try {
        native = await call(copy.upstreamId, copy.object);
      } catch (error) {
        if (!(error instanceof GatewayError) || error.code !== "conflict") throw error;
        const now = await this.refresh(ctx, id);
        if (!spec.transitions[now.status]?.includes(to)) throw illegalTransition(id, now.status, to);
        throw error;
      }
      return ctx.core.store.db.transaction().execute((trx) => apply(trx, ctx.core, copy, native));
    },

    async fromHook(ctx, pushed) {
      try {
        checkShape(spec.native, pushed, `The ${noun} the hook carries`);
        return await applyHook(ctx, pushed as N);
      } catch (error) {
        // A hook that is not the upstream's shape, or whose state maps to what the API never answers, is refused like
        // any malformed hook, and kept nowhere.
        if (error instanceof UnreadableAnswer) throw invalidRequest(`${error.message}; the hook is refused`);
        throw error;
      }
    },
  };
}
