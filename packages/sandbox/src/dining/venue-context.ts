// What the booking site's venues share: their settings (delays, clock, hook pusher), the timers of the actions a
// venue takes by itself, the site's refusals, and its record codes.
import { randomBytes } from "node:crypto";
import { SandboxError } from "../shared/errors.ts";
import type { PushHook } from "../shared/push-hook.ts";
import { type Shop, shopByCode } from "./restaurants.ts";

export interface VenueOptions {
  now: () => number;
  /** A `request` venue confirms a booking this long after it was made. */
  venueDelayMs: number;
  /** A queued party is called this long after joining; null: only the control endpoint calls. */
  queueCallMs: number | null;
  /** A called party has this long to show up. */
  queueHoldMs: number;
  push: PushHook;
}

/** A refusal in the site's own terms: `code` goes into its error body. */
export class DiningError extends SandboxError {
  constructor(
    status: number,
    readonly code: string,
    message: string,
  ) {
    super(status, status === 404 ? "not_found" : "bad_request", message);
  }
}

/** A record code such as TT-7F3K9Q2M: the prefix and 8 characters without 0/O or 1/I ambiguity. */
export const newCode = (prefix: string) =>
  `${prefix}${[...randomBytes(8)].map((b) => "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"[b % 32]).join("")}`;

export function shopOf(shopCode: string): Shop {
  const shop = shopByCode.get(shopCode);
  if (!shop) throw new DiningError(404, "SHOP_NOT_FOUND", `No shop ${shopCode}`);
  return shop;
}

/** A record as the site answers it: without the member it belongs to, and a copy. */
export function withoutMember<T extends { member: string }>(record: T): Omit<T, "member"> {
  const { member: _member, ...rest } = record;
  return structuredClone(rest);
}

export class VenueContext {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(readonly options: VenueOptions) {}

  now = (): number => this.options.now();

  /** Runs a venue action later; one that no longer applies (the guest cancelled first) is dropped. */
  later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      try {
        action();
      } catch (error) {
        if (!(error instanceof DiningError)) throw error;
      }
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
