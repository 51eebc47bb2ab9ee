// The waitlist state machine over real HTTP: waiting → called (waitlist.called, by the venue's control or after its
// delay) → seated | expired (by control or after the hold), or left by the caller from waiting or called; leaving
// twice, or after the entry is over, is 409. Each waitlist.called is verified with the SDK and its data.object equals
// get_waitlist_entry then. Bad input and foreign ids change nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectDiner,
  type DiningSetup,
  delivered,
  deliveredTypes,
  dining,
  startDining,
  untilStatus,
  venue,
} from "./setup.ts";

let s: DiningSetup;
beforeAll(async () => {
  s = await startDining();
});
afterAll(async () => s?.close());

const contact = "鈴木 次郎";

async function join(restaurantId = "rst_shibuya_ramen", partySize = 2, headers: Record<string, string> = {}) {
  const joined = await dining(
    s,
    "join_waitlist",
    { restaurant_id: restaurantId, party_size: partySize, contact_name: contact },
    { headers },
  );
  expect(joined.status, joined.text).toBe(200);
  return joined.body.data;
}

const get = async (id: string) => {
  const read = await dining(s, "get_waitlist_entry", { waitlist_entry_id: id });
  expect(read.status, read.text).toBe(200);
  return read.body.data;
};
const leave = (id: string) => dining(s, "leave_waitlist", { waitlist_entry_id: id });

async function called(entry: { id: string; ticket_number: number }) {
  const ticket = await ticketNo(entry.id);
  await venue(s, "call", { ticket_no: ticket });
  const event = await delivered(s, "waitlist.called", entry.id);
  expect(event.data.object).toEqual(await get(entry.id));
  return { ticket, event };
}

/** The venue's ticket number for an entry, from the gateway's copy (the upstream id is not part of the object). */
const ticketNo = async (id: string) =>
  (
    await s.t.gateway.core.store.db
      .selectFrom("provider_resources")
      .select("upstream_id")
      .where("id", "=", id)
      .executeTakeFirstOrThrow()
  ).upstream_id;

describe("waitlist", () => {
  it("join answers waiting in the data/meta/pagination envelope with the venue's estimate", async () => {
    const joined = await dining(s, "join_waitlist", {
      restaurant_id: "rst_shibuya_ramen",
      party_size: 3,
      contact_name: contact,
    });
    expect(joined.body).toEqual({
      data: {
        id: expect.stringMatching(/^wl_[0-9A-Za-z]{22}$/),
        status: "waiting",
        restaurant_id: "rst_shibuya_ramen",
        party_size: 3,
        contact_name: contact,
        ticket_number: expect.any(Number),
        quoted_wait_minutes: 15,
        respond_by: null,
        created_at: expect.any(String),
        updated_at: joined.body.data.created_at,
        called_at: null,
        closed_at: null,
      },
      meta: { source: "dining", fetched_at: expect.any(String) },
      pagination: null,
    });
    expect(await get(joined.body.data.id)).toEqual(joined.body.data);
    expect((await leave(joined.body.data.id)).body.data.status).toBe("left");
  });

  it("waiting → called (waitlist.called) → seated; leaving a seated entry is 409", async () => {
    const entry = await join();
    const { ticket, event } = await called(entry);
    expect(event.data.object).toMatchObject({ status: "called", respond_by: expect.stringMatching(/\+09:00$/) });
    await venue(s, "seat", { ticket_no: ticket });
    const seated = await untilStatus(s, "get_waitlist_entry", { waitlist_entry_id: entry.id }, "seated");
    expect(seated.closed_at).toEqual(expect.any(String));
    const refused = await leave(entry.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: "conflict",
      details: { reason: "illegal_transition", status: "seated", requested: "left" },
    });
    expect(deliveredTypes(s, entry.id)).toEqual(["waitlist.called"]);
  });

  it("waiting → called → expired when the party does not show up; leaving then is 409", async () => {
    const entry = await join("rst_instant");
    const { ticket } = await called(entry);
    await venue(s, "expire", { ticket_no: ticket });
    await untilStatus(s, "get_waitlist_entry", { waitlist_entry_id: entry.id }, "expired");
    expect((await leave(entry.id)).status).toBe(409);
  });

  it("waiting → left by the caller; leaving twice is 409 and the venue can no longer call it", async () => {
    const entry = await join();
    const left = await leave(entry.id);
    expect(left.body.data).toMatchObject({ id: entry.id, status: "left", closed_at: expect.any(String) });
    expect(await get(entry.id)).toEqual(left.body.data);
    const again = await leave(entry.id);
    expect(again.status).toBe(409);
    expect(again.body.error.details).toEqual({ reason: "illegal_transition", status: "left", requested: "left" });
    const late = await fetch(`${s.sandboxUrl}/_sandbox/venue/call`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ticket_no: await ticketNo(entry.id) }),
    });
    expect(late.status).toBe(409);
    expect(deliveredTypes(s, entry.id)).toEqual([]);
  });

  it("the venue's controls also take the entry's ticket_number, as the API shows it", async () => {
    const entry = await join("rst_shibuya_ramen", 2);
    await venue(s, "call", { ticket_number: entry.ticket_number });
    expect((await delivered(s, "waitlist.called", entry.id)).data.object).toEqual(await get(entry.id));
    const unknown = await fetch(`${s.sandboxUrl}/_sandbox/venue/seat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ticket_number: 999_999 }),
    });
    expect(unknown.status).toBe(404);
    expect(await leave(entry.id)).toMatchObject({ status: 200 });
  });

  it("called → left by the caller", async () => {
    const entry = await join();
    await called(entry);
    const left = await leave(entry.id);
    expect(left.body.data).toMatchObject({ status: "left", called_at: expect.any(String) });
    expect(await get(entry.id)).toEqual(left.body.data);
  });

  it("called, then left before the call's hook arrived: the leave still announces waitlist.called", async () => {
    const entry = await join();
    s.holdHooks(true);
    try {
      await venue(s, "call", { ticket_no: await ticketNo(entry.id) });
      const left = await leave(entry.id);
      expect(left.body.data).toMatchObject({ status: "left", called_at: expect.any(String) });
      const event = await delivered(s, "waitlist.called", entry.id);
      expect(event.data.object).toEqual(left.body.data);
      expect(deliveredTypes(s, entry.id)).toEqual(["waitlist.called"]);
    } finally {
      s.holdHooks(false);
    }
  });

  it("the venue calls by itself after its delay and lets a no-show expire after the hold", async () => {
    await venue(s, "settings", { queue_call_ms: 50, queue_hold_ms: 300 });
    try {
      const entry = await join("rst_ebisu_yakitori");
      const event = await delivered(s, "waitlist.called", entry.id);
      expect(event.data.object.status).toBe("called");
      const expired = await untilStatus(s, "get_waitlist_entry", { waitlist_entry_id: entry.id }, "expired");
      expect(expired).toMatchObject({ called_at: event.data.object.called_at, closed_at: expect.any(String) });
    } finally {
      await venue(s, "settings", { queue_call_ms: null, queue_hold_ms: 600_000 });
    }
  });
});

describe("waitlist refusals change nothing", () => {
  it("refuses a second entry in the same queue (409), a venue without a queue and a party too large (422)", async () => {
    const entry = await join("rst_marunouchi_soba");
    const before = await s.t.gateway.core.store.db.selectFrom("provider_resources").select("id").execute();
    const twice = await dining(s, "join_waitlist", {
      restaurant_id: "rst_marunouchi_soba",
      party_size: 2,
      contact_name: contact,
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({ code: "conflict", provider: "dining" });
    const noQueue = await dining(s, "join_waitlist", {
      restaurant_id: "rst_strict",
      party_size: 2,
      contact_name: contact,
    });
    expect(noQueue.status).toBe(422);
    expect(noQueue.body.error).toMatchObject({ code: "provider_rejected", provider: "dining" });
    const large = await dining(s, "join_waitlist", {
      restaurant_id: "rst_shibuya_ramen",
      party_size: 9,
      contact_name: contact,
    });
    expect([large.status, large.body.error.code]).toEqual([422, "provider_rejected"]);
    const unknown = await dining(s, "join_waitlist", {
      restaurant_id: "rst_gone",
      party_size: 2,
      contact_name: contact,
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "not_found"]);
    const zero = await dining(s, "join_waitlist", {
      restaurant_id: "rst_instant",
      party_size: 0,
      contact_name: contact,
    });
    expect(zero.body.error.details).toEqual([{ path: "/party_size", message: "must be >= 1" }]);
    const after = await s.t.gateway.core.store.db.selectFrom("provider_resources").select("id").execute();
    expect(after).toEqual(before);
    expect(await get(entry.id)).toMatchObject({ status: "waiting" });
  });

  it("replays join_waitlist for the same Idempotency-Key instead of queueing twice", async () => {
    const first = await join("rst_nakameguro_trattoria", 2, { "idempotency-key": "queue-once" });
    const replay = await dining(
      s,
      "join_waitlist",
      { restaurant_id: "rst_nakameguro_trattoria", party_size: 2, contact_name: contact },
      { headers: { "idempotency-key": "queue-once" } },
    );
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.data).toEqual(first);
  });

  it("unknown ids and another account's entries are 404", async () => {
    const entry = await join("rst_shinjuku_robata");
    const unknown = await dining(s, "get_waitlist_entry", { waitlist_entry_id: "wl_nope" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe("There is no waitlist entry wl_nope");
    expect((await dining(s, "leave_waitlist", { waitlist_entry_id: "wl_nope" })).status).toBe(404);
    const wrongType = await dining(s, "get_waitlist_entry", { waitlist_entry_id: 7 });
    expect(wrongType.body.error.details).toEqual([{ path: "/waitlist_entry_id", message: "must be string" }]);
    await s.t.gateway.core.accounts.ensure("other");
    const other = await s.t.gateway.core.apiKeys.create({ accountId: "other", name: "other", scopes: ["*"] });
    const otherConnection = await connectDiner(s.t, "diner_other", "demo", other.key);
    const foreign = await dining(
      s,
      "leave_waitlist",
      { waitlist_entry_id: entry.id },
      { key: other.key, connectionId: otherConnection },
    );
    expect([foreign.status, foreign.body.error.message]).toEqual([404, `There is no waitlist entry ${entry.id}`]);
    expect(await get(entry.id)).toMatchObject({ status: "waiting" });
  });
});
