// The venues' walk-in queues: a ticket is waiting → called (by the venue after its delay, or on demand) → seated, or
// no_show when the party does not arrive within the hold; or left by the guest while waiting or called. Every change
// raises `rev` and is pushed as ticket.changed.
import { tokyoIso } from "./calendar.ts";
import { maxSeats } from "./restaurants.ts";
import { DiningError, newCode, shopOf, type VenueContext, withoutMember } from "./venue-context.ts";

export interface Ticket {
  ticket_no: string;
  shop_code: string;
  /** The number the venue calls out. */
  call_number: number;
  seats: number;
  guest_name: string;
  state: "waiting" | "called" | "seated" | "no_show" | "left";
  quoted_wait_min: number;
  joined_at: string;
  called_at: string | null;
  /** A called party must show up by then, or the ticket lapses (no_show). */
  respond_by: string | null;
  closed_at: string | null;
  updated_at: string;
  rev: number;
}

export class Queue {
  private readonly tickets = new Map<string, Ticket & { member: string }>();
  private callNumber = 0;

  constructor(private readonly ctx: VenueContext) {}

  join(member: string, shopCode: string, input: { seats: number; guest_name: string }): Ticket {
    const shop = shopOf(shopCode);
    if (!shop.queue) throw new DiningError(422, "NO_QUEUE", `${shop.shop_code} does not keep a waiting list`);
    const limit = shop.tables.length > 0 ? maxSeats(shop) : 4;
    if (input.seats > limit) {
      throw new DiningError(422, "PARTY_TOO_LARGE", `${shop.shop_code} queues parties of at most ${limit}`);
    }
    const active = [...this.tickets.values()].filter(
      (t) => t.shop_code === shopCode && (t.state === "waiting" || t.state === "called"),
    );
    const mine = active.find((t) => t.member === member);
    if (mine) throw new DiningError(409, "ALREADY_QUEUED", `Already in the queue of ${shopCode} (${mine.ticket_no})`);
    const at = tokyoIso(this.ctx.now());
    const ticket = {
      member,
      ticket_no: newCode("Q-"),
      shop_code: shopCode,
      call_number: ++this.callNumber,
      seats: input.seats,
      guest_name: input.guest_name,
      state: "waiting" as const,
      quoted_wait_min: 15 * (active.filter((t) => t.state === "waiting").length + 1),
      joined_at: at,
      called_at: null,
      respond_by: null,
      closed_at: null,
      updated_at: at,
      rev: 1,
    };
    this.tickets.set(ticket.ticket_no, ticket);
    const { queueCallMs } = this.ctx.options;
    if (queueCallMs !== null) this.ctx.later(queueCallMs, () => this.call(ticket.ticket_no));
    return withoutMember(ticket);
  }

  ticket(member: string, ticketNo: string): Ticket {
    const ticket = this.tickets.get(ticketNo);
    if (!ticket || ticket.member !== member) throw new DiningError(404, "TICKET_NOT_FOUND", `No ticket ${ticketNo}`);
    return withoutMember(ticket);
  }

  leave(member: string, ticketNo: string): Ticket {
    const ticket = this.ticket(member, ticketNo);
    if (ticket.state !== "waiting" && ticket.state !== "called") {
      throw new DiningError(409, "TICKET_CLOSED", `${ticketNo} is ${ticket.state}`);
    }
    const now = this.ctx.now();
    return this.changeTicket(ticketNo, { state: "left", closed_at: tokyoIso(now) }, now);
  }

  /** The code of the ticket with this call number (the API's `ticket_number`; numbers are unique in the sandbox). */
  ticketNoOf(callNumber: number): string {
    for (const ticket of this.tickets.values()) if (ticket.call_number === callNumber) return ticket.ticket_no;
    throw new DiningError(404, "TICKET_NOT_FOUND", `No ticket with call number ${callNumber}`);
  }

  call(ticketNo: string): Ticket {
    this.venueTicket(ticketNo, ["waiting"], "call");
    const now = this.ctx.now();
    const respondBy = now + this.ctx.options.queueHoldMs;
    this.ctx.later(this.ctx.options.queueHoldMs, () => this.expire(ticketNo));
    return this.changeTicket(
      ticketNo,
      { state: "called", called_at: tokyoIso(now), respond_by: tokyoIso(respondBy) },
      now,
    );
  }

  seat(ticketNo: string): Ticket {
    this.venueTicket(ticketNo, ["called"], "seat");
    const now = this.ctx.now();
    return this.changeTicket(ticketNo, { state: "seated", closed_at: tokyoIso(now) }, now);
  }

  expire(ticketNo: string): Ticket {
    this.venueTicket(ticketNo, ["called"], "expire");
    const now = this.ctx.now();
    return this.changeTicket(ticketNo, { state: "no_show", closed_at: tokyoIso(now) }, now);
  }

  private venueTicket(ticketNo: string, from: Ticket["state"][], action: string) {
    const ticket = this.tickets.get(ticketNo);
    if (!ticket) throw new DiningError(404, "TICKET_NOT_FOUND", `No ticket ${ticketNo}`);
    if (!from.includes(ticket.state)) {
      throw new DiningError(409, "INVALID_STATE", `Cannot ${action} ${ticketNo}: it is ${ticket.state}`);
    }
    return ticket;
  }

  /** Applies a change made at `at` (ms), the one clock reading of the change: its own timestamps carry it too. */
  private changeTicket(ticketNo: string, change: Partial<Ticket>, at = this.ctx.now()): Ticket {
    const ticket = this.tickets.get(ticketNo)!;
    Object.assign(ticket, change, { updated_at: tokyoIso(at), rev: ticket.rev + 1 });
    const view = withoutMember(ticket);
    void this.ctx.options.push("ticket.changed", { ticket: view });
    return view;
  }
}
