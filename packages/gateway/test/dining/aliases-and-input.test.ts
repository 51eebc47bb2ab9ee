// The resource aliases POST/GET/DELETE /v1/dining/reservations[/{id}] (same envelope, errors and idempotency as the
// operations), bad input of every kind (the right code, a clear message, nothing changed), ids of another account and
// of another diner, and contact names kept out of the logs.
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureLog } from "../log-capture.ts";
import { alias, connectDiner, type DiningSetup, dining, freeSlot, startDining, tokyoDay } from "./setup.ts";

const contact = "秘密 乃名前";
const log = captureLog();
let s: DiningSetup;
beforeAll(async () => {
  s = await startDining({ gateway: { logger: { level: "trace", stream: log.stream } } });
});
afterAll(async () => s?.close());

const copies = () => s.t.gateway.core.store.db.selectFrom("provider_resources").select("id").execute();

async function createInput(restaurantId = "rst_instant") {
  const slot = await freeSlot(s, restaurantId);
  return { restaurant_id: restaurantId, slot_id: slot.id, party_size: 2, contact_name: contact };
}

describe("resource aliases", () => {
  it("POST /v1/dining/reservations creates, GET reads, DELETE cancels, in the operations' envelope", async () => {
    const created = await alias(s, "POST", "/reservations", await createInput());
    expect(created.status, created.text).toBe(200);
    expect(created.body).toEqual({
      data: expect.objectContaining({ status: "confirmed", contact_name: contact }),
      meta: { source: "dining", fetched_at: expect.any(String) },
      pagination: null,
    });
    const id = created.body.data.id;
    const read = await alias(s, "GET", `/reservations/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(created.body.data);
    expect((await dining(s, "get_reservation", { reservation_id: id })).body.data).toEqual(read.body.data);
    const cancelled = await alias(s, "DELETE", `/reservations/${id}`);
    expect(cancelled.body.data).toMatchObject({ id, status: "cancelled", cancelled_by: "caller" });
    const again = await alias(s, "DELETE", `/reservations/${id}`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "conflict", details: { reason: "illegal_transition" } });
  });

  it("replays an Idempotency-Key on POST byte for byte without booking twice", async () => {
    const input = await createInput();
    const before = (await copies()).length;
    const first = await alias(s, "POST", "/reservations", input, { "idempotency-key": "dinner-2412" });
    expect(first.status).toBe(200);
    const replay = await alias(s, "POST", "/reservations", input, { "idempotency-key": "dinner-2412" });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(first.text);
    expect((await copies()).length).toBe(before + 1);
    const other = await alias(
      s,
      "POST",
      "/reservations",
      { ...input, party_size: 3 },
      { "idempotency-key": "dinner-2412" },
    );
    expect(other.status).toBe(409);
    expect(other.body.error.details).toEqual({ reason: "idempotency_key_reused" });
  });

  it("answers the operations' errors: 404 for unknown ids, 400 for wrong methods, bodies and missing connections", async () => {
    const unknown = await alias(s, "GET", "/reservations/rsv_0000000000000000000000");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toEqual({
      code: "not_found",
      message: "There is no reservation rsv_0000000000000000000000",
      request_id: unknown.headers.get("x-request-id"),
      retryable: false,
    });
    const put = await alias(s, "PUT", "/reservations/rsv_0000000000000000000000", {});
    expect(put.status).toBe(400);
    expect(put.headers.get("allow")).toBe("GET, HEAD, DELETE");
    expect(put.body.error.code).toBe("invalid_request");
    expect(put.body.error.message).toBe(
      "PUT is not allowed on /v1/dining/reservations/rsv_0000000000000000000000; use GET, HEAD or DELETE",
    );
    const list = await alias(s, "GET", "/reservations");
    expect([list.status, list.headers.get("allow")]).toEqual([400, "POST"]);
    const withBody = await alias(s, "DELETE", "/reservations/rsv_0000000000000000000000", { reason: "x" });
    expect(withBody.body.error.details).toEqual([{ path: "", message: "must be empty" }]);
    // A GET's body is refused the same way, though Fastify never reads it (fetch cannot send one; undici can).
    const getWithBody = await request(`${s.t.url}/v1/dining/reservations/rsv_0000000000000000000000`, {
      method: "GET",
      headers: {
        authorization: `Bearer ${s.t.key}`,
        "x-gateway-connection-id": s.connectionId,
        "content-type": "application/json",
      },
      body: '{"reason":"x"}',
    });
    expect(getWithBody.statusCode).toBe(400);
    expect(((await getWithBody.body.json()) as any).error.details).toEqual([{ path: "", message: "must be empty" }]);
    // A trailing slash names no reservation: the 404 of a path without a route, as for POST.
    for (const method of ["GET", "DELETE"]) {
      const trailing = await alias(s, method, "/reservations/");
      expect([trailing.status, trailing.body.error.code, trailing.body.error.message]).toEqual([
        404,
        "not_found",
        `No route ${method} /v1/dining/reservations/`,
      ]);
    }
    const noConnection = await fetch(`${s.t.url}/v1/dining/reservations/rsv_0000000000000000000000`, {
      headers: { authorization: `Bearer ${s.t.key}` },
    });
    expect(noConnection.status).toBe(400);
    expect(((await noConnection.json()) as any).error.details).toEqual([
      { path: "/headers/x-gateway-connection-id", message: "is required" },
    ]);
  });

  it("are in the OpenAPI document with their path parameter and Idempotency-Key on POST", async () => {
    const document = (await (await fetch(`${s.t.url}/openapi.json`)).json()) as any;
    const item = document.paths["/v1/dining/reservations/{reservation_id}"];
    expect(Object.keys(item)).toEqual(["get", "delete"]);
    expect(item.delete.parameters[0]).toMatchObject({ name: "reservation_id", in: "path", required: true });
    expect(item.get["x-auth-mode"]).toBe("credentials");
    const create = document.paths["/v1/dining/reservations"].post;
    expect(create.parameters).toContainEqual({ $ref: "#/components/parameters/IdempotencyKey" });
    expect(create.requestBody.content["application/json"].schema.required).toEqual([
      "restaurant_id",
      "slot_id",
      "party_size",
      "contact_name",
    ]);
  });
});

describe("bad input changes nothing", () => {
  it("refuses wrong types, unknown fields, zero and negative party sizes, blank names with 400 and every field", async () => {
    const valid = await createInput();
    const before = (await copies()).length;
    const cases: [Record<string, unknown>, { path: string; message: string }[]][] = [
      [{ ...valid, party_size: "2" }, [{ path: "/party_size", message: "must be integer" }]],
      [{ ...valid, party_size: 0 }, [{ path: "/party_size", message: "must be >= 1" }]],
      [{ ...valid, party_size: -3 }, [{ path: "/party_size", message: "must be >= 1" }]],
      [{ ...valid, party_size: 2.5 }, [{ path: "/party_size", message: "must be integer" }]],
      [{ ...valid, table: "window" }, [{ path: "/table", message: "is not an allowed property" }]],
      [
        { ...valid, contact_name: "  " },
        [{ path: "/contact_name", message: "must contain something other than spaces" }],
      ],
      // At most 100 characters in all, as the site takes them: refused here, not by the site in its own words.
      [
        { ...valid, slot_id: `slot_${"a".repeat(96)}` },
        [{ path: "/slot_id", message: 'must be a slot id from list_slots ("slot_…")' }],
      ],
      [
        { restaurant_id: 42, party_size: 2 },
        [
          { path: "/slot_id", message: "is required" },
          { path: "/contact_name", message: "is required" },
          { path: "/restaurant_id", message: "must be string" },
        ],
      ],
    ];
    for (const [input, details] of cases) {
      const refused = await dining(s, "create_reservation", input);
      expect(refused.status, JSON.stringify(input)).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "invalid_request", retryable: false, details });
      expect(refused.body.error.message).toBe("The input of dining:create_reservation is invalid");
      expect(refused.body.error.provider).toBeUndefined();
    }
    const notJson = await dining(s, "create_reservation", "{party_size: 2");
    expect([notJson.status, notJson.body.error.code]).toEqual([400, "invalid_request"]);
    expect((await copies()).length).toBe(before);
  });

  it("list_slots without party_size lists every free table, each with the party sizes it seats", async () => {
    const date = tokyoDay(7);
    const all = await dining(s, "list_slots", { restaurant_id: "rst_instant", date });
    expect(all.status).toBe(200);
    expect(all.body.data).toMatchObject({ restaurant_id: "rst_instant", date, party_size: null });
    const forFive = await dining(s, "list_slots", { restaurant_id: "rst_instant", date, party_size: 5 });
    expect(forFive.body.data.party_size).toBe(5);
    const ids = (answer: typeof all) => answer.body.data.slots.map((slot: { id: string }) => slot.id);
    const seatsFive = all.body.data.slots.filter((slot: any) => slot.min_party_size <= 5 && slot.max_party_size >= 5);
    expect(seatsFive.map((slot: { id: string }) => slot.id)).toEqual(ids(forFive));
    expect(ids(forFive).length).toBeGreaterThan(0);
    expect(ids(all).length).toBeGreaterThan(ids(forFive).length);
    expect(ids(all)[0]).toMatch(/^slot_/);
  });

  it("refuses past dates, unknown restaurants and slots of another restaurant", async () => {
    const yesterday = tokyoDay(-1);
    const past = await dining(s, "list_slots", { restaurant_id: "rst_instant", date: yesterday, party_size: 2 });
    expect(past.status).toBe(400);
    expect(past.body.error.details).toEqual([{ path: "/date", message: `must be today (${tokyoDay(0)}) or later` }]);
    expect(past.body.error.message).toContain("is in the past");
    const badDate = await dining(s, "list_slots", { restaurant_id: "rst_instant", date: "2027-02-30", party_size: 2 });
    expect(badDate.body.error.details).toEqual([{ path: "/date", message: 'must match format "date"' }]);
    const unknown = await dining(s, "list_slots", { restaurant_id: "rst_nowhere", date: tokyoDay(7), party_size: 2 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({
      code: "not_found",
      provider: "dining",
      message: expect.stringContaining("rst_nowhere"),
    });
    const slot = await freeSlot(s, "rst_approval");
    const before = (await copies()).length;
    const mismatch = await dining(s, "create_reservation", { ...(await createInput()), slot_id: slot.id });
    expect(mismatch.status).toBe(404);
    expect(mismatch.body.error).toMatchObject({ code: "not_found", provider: "dining" });
    const tooMany = await dining(s, "create_reservation", { ...(await createInput()), party_size: 20 });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error).toMatchObject({ code: "provider_rejected", provider: "dining" });
    expect((await copies()).length).toBe(before);
  });

  it("another account's reservation is 404 without asking the site; another diner's is 404 from the site", async () => {
    const mine = (await alias(s, "POST", "/reservations", await createInput())).body.data;
    await s.t.gateway.core.accounts.ensure("other");
    const other = await s.t.gateway.core.apiKeys.create({ accountId: "other", name: "other", scopes: ["*"] });
    const otherConnection = await connectDiner(s.t, "diner_other", "demo", other.key);
    for (const operation of ["get_reservation", "cancel_reservation"]) {
      const foreign = await dining(
        s,
        operation,
        { reservation_id: mine.id },
        { key: other.key, connectionId: otherConnection },
      );
      expect(foreign.status).toBe(404);
      expect(foreign.body.error).toEqual({
        code: "not_found",
        message: `There is no reservation ${mine.id}`,
        request_id: foreign.headers.get("x-request-id"),
        retryable: false,
      });
    }
    const secondDiner = await connectDiner(s.t, "diner_2", "demo2");
    const theirs = await dining(s, "get_reservation", { reservation_id: mine.id }, { connectionId: secondDiner });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toMatchObject({ code: "not_found", provider: "dining" });
    expect((await dining(s, "get_reservation", { reservation_id: mine.id })).body.data).toEqual(mine);
  });

  it("never writes a contact name to the logs", () => {
    expect(log.rawLines().length).toBeGreaterThan(20);
    expect(log.rawLines().filter((line) => line.includes(contact))).toEqual([]);
  });
});
