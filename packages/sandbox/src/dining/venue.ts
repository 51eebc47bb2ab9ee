// The venues' side of the booking site, in memory: bookings and walk-in queue tickets, with the venue acting on its own
// after configured delays (bookings.ts, queue.ts). Every change is pushed as a hook with the record and its `rev`.
import { Bookings } from "./bookings.ts";
import { Queue } from "./queue.ts";
import { VenueContext, type VenueOptions } from "./venue-context.ts";

export type { Booking } from "./bookings.ts";
export type { Ticket } from "./queue.ts";
export { DiningError, shopOf, type VenueOptions } from "./venue-context.ts";

export class Venue {
  readonly bookings: Bookings;
  readonly queue: Queue;
  private readonly ctx: VenueContext;

  constructor(options: VenueOptions) {
    this.ctx = new VenueContext(options);
    this.bookings = new Bookings(this.ctx);
    this.queue = new Queue(this.ctx);
  }

  /** Changes the venue's delays for what happens from now on (tests: POST /_sandbox/venue/settings). */
  configure(settings: Partial<Pick<VenueOptions, "venueDelayMs" | "queueCallMs" | "queueHoldMs">>) {
    Object.assign(this.ctx.options, settings);
    const { venueDelayMs, queueCallMs, queueHoldMs } = this.ctx.options;
    return { venue_delay_ms: venueDelayMs, queue_call_ms: queueCallMs, queue_hold_ms: queueHoldMs };
  }

  close(): void {
    this.ctx.close();
  }
}
