// A test-only stateful provider, "tickets", over an in-memory upstream kept by the test: the smallest user of the
// stateful-resource mechanism (providers/stateful) and of resource aliases, so that their behaviour is tested apart
// from any real provider.
import { type Static, Type } from "@sinclair/typebox";
import { GatewayError } from "../../src/core/errors.ts";
import { StrictObject } from "../../src/providers/schemas.ts";
import { defineStatefulResource } from "../../src/providers/stateful/resource.ts";
import { defineOperation, defineProvider } from "../../src/providers/types.ts";

export const NativeTicket = Type.Object({
  key: Type.String(),
  state: Type.Union([Type.Literal("OPEN"), Type.Literal("CLOSED")]),
  title: Type.String(),
  rev: Type.Integer(),
});
export type NativeTicket = Static<typeof NativeTicket>;

/** The upstream: tickets by key, a count of calls, and a hook to run inside `create` (to race the call). */
export const upstream = {
  tickets: new Map<string, NativeTicket>(),
  calls: 0,
  duringCreate: undefined as ((ticket: NativeTicket) => Promise<void>) | undefined,
};

const Ticket = Type.Object(
  { id: Type.String(), status: Type.Union([Type.Literal("open"), Type.Literal("closed")]), title: Type.String() },
  { additionalProperties: false },
);

export const tickets = defineStatefulResource({
  kind: "ticket",
  native: NativeTicket,
  idPrefix: "tkt",
  schema: Ticket,
  upstreamId: (native: NativeTicket) => native.key,
  revision: (native: NativeTicket) => native.rev,
  fetch: async (_ctx, key) => {
    upstream.calls++;
    return { ...upstream.tickets.get(key)! };
  },
  toObject: (native: NativeTicket, id: string) => ({
    id,
    status: native.state === "OPEN" ? ("open" as const) : ("closed" as const),
    title: native.title,
  }),
  transitions: { open: ["closed"], closed: [] },
  events: (before, after) => (before.status !== after.status || before.title !== after.title ? ["order.updated"] : []),
});

const TicketId = Type.String({ minLength: 1, maxLength: 64 });
const example = { id: "tkt_0123456789ABCDEFGHIJKL", status: "open" as const, title: "Hello" };

export const ticketProvider = defineProvider({
  id: "tickets",
  title: "Tickets (test)",
  description: "A stateful test provider.",
  aliases: [
    { method: "POST", path: "/tickets", operation: "create_ticket" },
    { method: "GET", path: "/tickets/:ticket_id", operation: "get_ticket" },
    { method: "DELETE", path: "/tickets/:ticket_id", operation: "close_ticket" },
  ],
  operations: [
    defineOperation({
      id: "create_ticket",
      summary: "Open a ticket",
      auth: "none",
      input: StrictObject({ title: Type.String({ minLength: 1 }) }),
      output: Ticket,
      example: { input: { title: "Hello" }, output: example },
      async handle(input, ctx) {
        upstream.calls++;
        const native: NativeTicket = {
          key: `T-${upstream.tickets.size + 1}`,
          state: "OPEN",
          title: input.title,
          rev: 1,
        };
        upstream.tickets.set(native.key, native);
        await upstream.duringCreate?.(native);
        return { data: await tickets.created(ctx, native) };
      },
    }),
    defineOperation({
      id: "get_ticket",
      summary: "Read a ticket",
      auth: "none",
      readOnly: true,
      input: StrictObject({ ticket_id: TicketId }),
      output: Ticket,
      example: { input: { ticket_id: example.id }, output: example },
      async handle(input, ctx) {
        return { data: await tickets.refresh(ctx, input.ticket_id) };
      },
    }),
    defineOperation({
      id: "close_ticket",
      summary: "Close a ticket",
      auth: "none",
      input: StrictObject({ ticket_id: TicketId }),
      output: Ticket,
      example: { input: { ticket_id: example.id }, output: { ...example, status: "closed" } },
      async handle(input, ctx) {
        const data = await tickets.transition(ctx, input.ticket_id, "closed", async (key) => {
          upstream.calls++;
          const native = upstream.tickets.get(key)!;
          // As a real upstream: closing a closed ticket is its conflict (the copy may not know it is closed yet).
          if (native.state === "CLOSED")
            throw new GatewayError("conflict", `${key} is closed`, { provider: "tickets" });
          const closed: NativeTicket = { ...native, state: "CLOSED", rev: native.rev + 1 };
          upstream.tickets.set(key, closed);
          return closed;
        });
        return { data };
      },
    }),
  ],
  async handleHook(event, ctx) {
    if (event.type !== "ticket.changed") return {};
    return tickets.fromHook(ctx, event.data.ticket);
  },
});
