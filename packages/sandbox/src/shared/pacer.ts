// What the paced sandboxes (delivery kitchen and courier, ride dispatch, payment network) share: a pacer that moves
// each record one step per tick (SANDBOX_TICK_MS, default 2000) or, in manual mode, only when a test control says so;
// hooks pushed in order per record; and readable record codes.
import { randomBytes } from "node:crypto";
import { SandboxError } from "./errors.ts";
import type { PushHook } from "./push-hook.ts";

export const DEFAULT_TICK_MS = 2000;

/** SANDBOX_TICK_MS when set to a whole number of milliseconds, else the default. */
export function tickFromEnv(): number {
  const raw = process.env.SANDBOX_TICK_MS;
  const value = Number(raw);
  return raw !== undefined && raw !== "" && Number.isInteger(value) && value >= 0 ? value : DEFAULT_TICK_MS;
}

/** One pending step per record: the record's next move, a tick from when it was scheduled. */
export class Pacer {
  private readonly pending = new Map<string, NodeJS.Timeout>();

  /** `null`: manual mode, records move only through the sandbox's advance control. */
  constructor(public tickMs: number | null) {}

  /** Schedules the record's next step (replacing a pending one); a step that no longer applies is dropped. */
  next(key: string, step: () => void): void {
    this.cancel(key);
    if (this.tickMs === null) return;
    const timer = setTimeout(() => {
      this.pending.delete(key);
      try {
        step();
      } catch (error) {
        if (!(error instanceof SandboxError)) throw error;
      }
    }, this.tickMs);
    timer.unref();
    this.pending.set(key, timer);
  }

  cancel(key: string): void {
    const timer = this.pending.get(key);
    if (timer !== undefined) clearTimeout(timer);
    this.pending.delete(key);
  }

  close(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }
}

/**
 * A record's hooks one after the other: the gateway applies changes by revision and ignores an older one arriving
 * after a newer one, so out-of-order pushes of fast steps would hide a change from its event.
 */
export function orderedPush(push: PushHook): (key: string, type: string, payload: Record<string, unknown>) => void {
  const chains = new Map<string, Promise<unknown>>();
  return (key, type, payload) => {
    const next = (chains.get(key) ?? Promise.resolve()).then(() => push(type, payload));
    chains.set(key, next);
    void next.finally(() => {
      if (chains.get(key) === next) chains.delete(key);
    });
  };
}

/** A record code such as MP-7F3K9Q2M: the prefix and 8 characters without 0/O or 1/I ambiguity. */
export const newCode = (prefix: string): string =>
  `${prefix}${[...randomBytes(8)].map((b) => "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"[b % 32]).join("")}`;

/** A record as the upstream answers it: without the member it belongs to, and a copy. */
export function withoutMember<T extends { member: string }>(record: T): Omit<T, "member"> {
  const { member: _member, ...rest } = record;
  return structuredClone(rest);
}
