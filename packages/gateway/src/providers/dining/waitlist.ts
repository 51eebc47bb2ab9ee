// Waitlist operations (a connected diner's account): join a restaurant's walk-in queue, read the entry, leave it.
// The venue calls the party (event waitlist.called), then seats it or lets the entry expire.
import { StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { site } from "./adapter.ts";
import { waitlistEntries } from "./kinds.ts";
import { ContactName, exampleWaitlistEntry, PartySize, ResourceId, RestaurantId, WaitlistEntry } from "./schemas.ts";

const EntryInput = StrictObject({ waitlist_entry_id: ResourceId("waitlist entry") });
const exampleId = { waitlist_entry_id: exampleWaitlistEntry.id };

export const joinWaitlist = defineOperation({
  id: "join_waitlist",
  summary: "Join a restaurant's waitlist",
  description:
    "Queues the party for the next free table (status `waiting`). The venue calls it later (`called`, event " +
    "waitlist.called); it must then arrive by `respond_by` (`seated`) or the entry `expired`. A party already in " +
    "that queue is 409 conflict; a venue without a waitlist is 422 provider_rejected. Accepts Idempotency-Key.",
  auth: "credentials",
  input: StrictObject({ restaurant_id: RestaurantId, party_size: PartySize, contact_name: ContactName }),
  output: WaitlistEntry,
  example: {
    input: { restaurant_id: "rst_shibuya_ramen", party_size: 2, contact_name: "山田 花子" },
    output: exampleWaitlistEntry,
  },
  async handle(input, ctx) {
    const { ticket } = await site.join(ctx, input.restaurant_id, {
      seats: input.party_size,
      guest_name: input.contact_name,
    });
    return { data: await waitlistEntries.created(ctx, ticket) };
  },
});

export const getWaitlistEntry = defineOperation({
  id: "get_waitlist_entry",
  summary: "Read a waitlist entry",
  description: "The entry as the venue has it now.",
  auth: "credentials",
  readOnly: true,
  input: EntryInput,
  output: WaitlistEntry,
  example: { input: exampleId, output: exampleWaitlistEntry },
  async handle(input, ctx) {
    const data = await waitlistEntries.refresh(ctx, input.waitlist_entry_id);
    return { data };
  },
});

export const leaveWaitlist = defineOperation({
  id: "leave_waitlist",
  summary: "Leave a waitlist",
  description: "Takes a waiting or called party out of the queue (`left`). Leaving an entry that is over is 409.",
  auth: "credentials",
  input: EntryInput,
  output: WaitlistEntry,
  example: {
    input: exampleId,
    output: {
      ...exampleWaitlistEntry,
      status: "left" as const,
      updated_at: "2027-12-01T03:40:00.000Z",
      closed_at: "2027-12-01T03:40:00.000Z",
    },
  },
  async handle(input, ctx) {
    const data = await waitlistEntries.transition(ctx, input.waitlist_entry_id, "left", async (ticketNo) => {
      return (await site.leave(ctx, ticketNo)).ticket;
    });
    return { data };
  },
});
