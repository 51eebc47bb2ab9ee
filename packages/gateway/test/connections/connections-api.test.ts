// Connections as a resource: tenant isolation (a foreign id is an unknown id), the credentials header rules,
// tokens sealed at rest, replacement of the live connection of an external_ref, deletion with revocation at the
// provider, listing with filters and pages, and the input rules of create_connect_session.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretBox } from "../../src/core/crypto/secret-box.ts";
import { testStore } from "../harness.ts";
import { connect, eventsOf, platform, rawConnection, type ShoppingSetup, shopping, startShopping } from "./setup.ts";

let s: ShoppingSetup;
let keyB: string;

beforeAll(async () => {
  s = await startShopping();
  await s.t.gateway.core.accounts.ensure("acme");
  keyB = (await s.t.gateway.core.apiKeys.create({ accountId: "acme", scopes: ["*"] })).key;
});
afterAll(async () => s?.close());

const me = (token: string) =>
  fetch(`${s.sandboxUrl}/api/v2/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
const tokensOf = async (id: string) => {
  const row = await rawConnection(s.t, id);
  return {
    access: s.t.gateway.core.secretBox.open(row.access_token!),
    refresh: s.t.gateway.core.secretBox.open(row.refresh_token!),
  };
};

describe("isolation and the credentials header", () => {
  it("a connection of account A used by account B is 404, exactly like an unknown id", async () => {
    const { connection } = await connect(s.t, "iso_a");
    const foreign = await shopping(s.t, "get_cart", connection.id, {}, keyB);
    const foreignBody = (await foreign.json()) as any;
    const unknown = await shopping(s.t, "get_cart", "conn_0000000000000000000000", {}, keyB);
    const unknownBody = (await unknown.json()) as any;
    expect([foreign.status, unknown.status]).toEqual([404, 404]);
    expect(foreignBody.error).toEqual({
      code: "not_found",
      message: `No connection ${connection.id} for the shopping provider`,
      request_id: foreign.headers.get("x-request-id"),
      retryable: false,
    });
    expect(unknownBody.error.message).toBe("No connection conn_0000000000000000000000 for the shopping provider");
    expect((await platform(s.t, "get_connection", { connection_id: connection.id }, keyB)).status).toBe(404);
    expect((await platform(s.t, "delete_connection", { connection_id: connection.id }, keyB)).status).toBe(404);
    expect((await platform(s.t, "list_connections", {}, keyB)).body.data.connections).toEqual([]);
    // Account A still has it, untouched.
    expect((await shopping(s.t, "get_cart", connection.id)).status).toBe(200);
  });

  it("a missing or malformed header is 400; with an Origin header (a browser) it is 400 too", async () => {
    const { connection } = await connect(s.t, "iso_header");
    const missing = await s.t.call("shopping", "get_cart", {});
    expect(missing.status).toBe(400);
    const malformed = await shopping(s.t, "get_cart", "conn_short");
    expect(malformed.status).toBe(400);
    // Sent twice, the header's values arrive joined: the answer says it was sent twice, not that an id is malformed.
    const twice = await request(`${s.t.url}/v1/shopping/get_cart`, {
      method: "POST",
      headers: [
        ["authorization", `Bearer ${s.t.key}`],
        ["content-type", "application/json"],
        ["x-gateway-connection-id", connection.id],
        ["x-gateway-connection-id", connection.id],
      ].flat(),
      body: "{}",
    });
    expect(twice.statusCode).toBe(400);
    expect(((await twice.body.json()) as any).error).toEqual({
      code: "invalid_request",
      message: "X-Gateway-Connection-Id was sent more than once: send one connection id",
      details: [{ path: "/headers/x-gateway-connection-id", message: "was sent more than once" }],
      request_id: twice.headers["x-request-id"],
      retryable: false,
    });
    const fromBrowser = await s.t.call(
      "shopping",
      "get_cart",
      {},
      {
        "x-gateway-connection-id": connection.id,
        origin: "https://shop.example.com",
      },
    );
    const refusedFromBrowser = (requestId: string | null) => ({
      code: "invalid_request",
      message:
        "X-Gateway-Connection-Id was sent from a browser (an Origin or Sec-Fetch-Site header is present): connection ids belong in server code only",
      request_id: requestId,
      retryable: false,
    });
    expect(fromBrowser.status).toBe(400);
    expect(((await fromBrowser.json()) as any).error).toEqual(
      refusedFromBrowser(fromBrowser.headers.get("x-request-id")),
    );
    expect(fromBrowser.headers.get("access-control-allow-origin")).toBeNull();
    // A same-origin GET carries no Origin, but every current browser sends Sec-Fetch-Site with it.
    const sameOriginGet = await fetch(`${s.t.url}/v1/dining/reservations/rsv_0000000000000000000000`, {
      headers: {
        authorization: `Bearer ${s.t.key}`,
        "x-gateway-connection-id": connection.id,
        "sec-fetch-site": "same-origin",
        "sec-fetch-mode": "cors",
      },
    });
    expect(sameOriginGet.status).toBe(400);
    expect(((await sameOriginGet.json()) as any).error).toEqual(
      refusedFromBrowser(sameOriginGet.headers.get("x-request-id")),
    );
  });
});

describe("tokens at rest", () => {
  it("the database holds the tokens sealed, never in plain text", async () => {
    const { connection } = await connect(s.t, "sealed");
    const row = await rawConnection(s.t, connection.id);
    const { access, refresh } = await tokensOf(connection.id);
    expect(await me(access)).toBe(200); // they are the real, working tokens
    expect(row.access_token).toMatch(/^sb1\./);
    expect(row.refresh_token).toMatch(/^sb1\./);
    const raw = JSON.stringify(row);
    for (const token of [access, refresh]) expect(raw).not.toContain(token);
    const sessions = await s.t.gateway.core.store.db.selectFrom("connect_sessions").selectAll().execute();
    for (const token of [access, refresh]) expect(JSON.stringify(sessions)).not.toContain(token);
    if (testStore() === "sqlite") {
      // The whole database file and its write-ahead log, byte for byte.
      for (const name of ["gateway.db", "gateway.db-wal"]) {
        const file = path.join(s.t.config.dataDir, name);
        if (!fs.existsSync(file)) continue;
        const bytes = fs.readFileSync(file);
        for (const token of [access, refresh]) expect(bytes.includes(Buffer.from(token))).toBe(false);
      }
    }
  });
});

describe("replacement and deletion", () => {
  it("a new connect for the same external_ref replaces the live connection and says so in the events", async () => {
    const first = (await connect(s.t, "replace_me")).connection;
    const oldTokens = await tokensOf(first.id);
    const second = (await connect(s.t, "replace_me")).connection;
    expect(second.id).not.toBe(first.id);
    expect(second.replaces).toBe(first.id);
    const listed = await platform(s.t, "list_connections", { external_ref: "replace_me" });
    expect(listed.body.data.connections.map((c: any) => c.id)).toEqual([second.id]);
    expect((await shopping(s.t, "get_cart", first.id)).status).toBe(404);
    const deleted = (await eventsOf(s.t, "connection.deleted")).find((e) => e.data.object.id === first.id);
    expect(deleted.data.object).toMatchObject({ status: "deleted", replaced_by: second.id });
    const created = (await eventsOf(s.t, "connection.created")).find((e) => e.data.object.id === second.id);
    expect(created.data.object).toEqual(second);
    expect(await me(oldTokens.access)).toBe(401); // the replaced grant was revoked at the shop
  });

  it("a new connect replacing a connection whose token no key opens (altered) connects, and its page says so", async () => {
    const first = (await connect(s.t, "replace_altered")).connection;
    const oldTokens = await tokensOf(first.id);
    await s.t.gateway.core.store.db
      .updateTable("connections")
      .set({ refresh_token: new SecretBox(randomBytes(32)).seal("not the token") })
      .where("id", "=", first.id)
      .execute();
    // connect() throws unless the flow's last page is the success page.
    const second = (await connect(s.t, "replace_altered")).connection;
    expect(second.replaces).toBe(first.id);
    expect((await rawConnection(s.t, first.id)).status).toBe("deleted");
    expect(await me(oldTokens.access)).toBe(200); // its grant could not be revoked
  });

  it("delete_connection deletes, revokes at the shop, records the event; the id is 404 from then on", async () => {
    const { connection } = await connect(s.t, "delete_me");
    const { access } = await tokensOf(connection.id);
    const { status, body } = await platform(s.t, "delete_connection", { connection_id: connection.id });
    expect(status).toBe(200);
    expect(body.data).toEqual({
      connection: { ...connection, status: "deleted", deleted_at: expect.any(String), updated_at: expect.any(String) },
      provider_revoked: true,
    });
    expect(await me(access)).toBe(401);
    expect((await shopping(s.t, "get_cart", connection.id)).status).toBe(404);
    expect((await platform(s.t, "get_connection", { connection_id: connection.id })).status).toBe(404);
    expect((await platform(s.t, "delete_connection", { connection_id: connection.id })).status).toBe(404);
    const row = await rawConnection(s.t, connection.id);
    expect([row.status, row.access_token, row.refresh_token]).toEqual(["deleted", null, null]);
    const events = (await eventsOf(s.t, "connection.deleted")).filter((e) => e.data.object.id === connection.id);
    expect(events.map((e) => e.data.object)).toEqual([body.data.connection]);
  });

  it("delete_connection of a connection whose token no key opens (altered) deletes it and says it was not revoked", async () => {
    const { connection } = await connect(s.t, "delete_altered");
    const { access } = await tokensOf(connection.id);
    // Sealed under a key no node holds: a value the gateway can never open, so no node could revoke the grant.
    const altered = new SecretBox(randomBytes(32)).seal("not the token");
    await s.t.gateway.core.store.db
      .updateTable("connections")
      .set({ refresh_token: altered })
      .where("id", "=", connection.id)
      .execute();
    const { status, body } = await platform(s.t, "delete_connection", { connection_id: connection.id });
    expect([status, body.data]).toEqual([
      200,
      {
        connection: {
          ...connection,
          status: "deleted",
          deleted_at: expect.any(String),
          updated_at: expect.any(String),
        },
        provider_revoked: false,
      },
    ]);
    expect(await me(access)).toBe(200); // not revoked, as the answer says
    expect((await platform(s.t, "delete_connection", { connection_id: connection.id })).status).toBe(404);
    const row = await rawConnection(s.t, connection.id);
    expect([row.status, row.access_token, row.refresh_token]).toEqual(["deleted", null, null]);
  });
});

describe("listing and sessions", () => {
  it("list_connections filters by external_ref and pages newest first", async () => {
    for (const ref of ["page_1", "page_2", "page_3"]) {
      s.clock.advance(1000);
      await connect(s.t, ref);
    }
    const all = (await platform(s.t, "list_connections", { provider_id: "shopping", limit: 100 })).body;
    const refs = all.data.connections.map((c: any) => c.external_ref);
    expect(refs.slice(0, 3)).toEqual(["page_3", "page_2", "page_1"]);
    const first = await platform(s.t, "list_connections", { limit: 2 });
    expect(first.body.pagination).toEqual({ next_cursor: expect.any(String), has_more: true });
    const next = await platform(s.t, "list_connections", { limit: 2, cursor: first.body.pagination.next_cursor });
    expect(next.body.data.connections.map((c: any) => c.external_ref)).toEqual(refs.slice(2, 4));
    const one = await platform(s.t, "list_connections", { external_ref: "page_2" });
    expect(one.body.data.connections.map((c: any) => c.external_ref)).toEqual(["page_2"]);
  });

  it("list_connections filters by the start of external_ref, case-sensitively, by characters, and pages", async () => {
    for (const ref of ["顧客_7", "顧客_8", "Page_x", "顧客_9", "page%_"]) {
      s.clock.advance(1000);
      await connect(s.t, ref);
    }
    const refsOf = async (input: Record<string, unknown>) =>
      (await platform(s.t, "list_connections", input)).body.data.connections.map((c: any) => c.external_ref);
    expect(await refsOf({ external_ref_prefix: "顧客_" })).toEqual(["顧客_9", "顧客_8", "顧客_7"]);
    expect(await refsOf({ external_ref_prefix: "Page" })).toEqual(["Page_x"]);
    // No wildcards: % and _ are themselves.
    expect(await refsOf({ external_ref_prefix: "page%" })).toEqual(["page%_"]);
    expect(await refsOf({ external_ref_prefix: "顧客_8", external_ref: "顧客_8" })).toEqual(["顧客_8"]);
    const first = await platform(s.t, "list_connections", { external_ref_prefix: "顧客", limit: 2 });
    const rest = await refsOf({ external_ref_prefix: "顧客", cursor: first.body.pagination.next_cursor });
    expect([...first.body.data.connections.map((c: any) => c.external_ref), ...rest]).toEqual([
      "顧客_9",
      "顧客_8",
      "顧客_7",
    ]);
    const empty = await platform(s.t, "list_connections", { external_ref_prefix: "" });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details).toEqual([
      { path: "/external_ref_prefix", message: "must NOT have fewer than 1 characters" },
    ]);
  });

  it("create_connect_session refuses providers without connections and over-long references", async () => {
    const catalog = await platform(s.t, "create_connect_session", { provider_id: "catalog", external_ref: "x" });
    expect(catalog.status).toBe(400);
    expect(catalog.body.error.details).toEqual([
      { path: "/provider_id", message: "is not a provider with credentials operations" },
    ]);
    const long = await platform(s.t, "create_connect_session", {
      provider_id: "shopping",
      external_ref: "r".repeat(256),
    });
    expect(long.status).toBe(400);
    expect(long.body.error.details).toEqual([
      { path: "/external_ref", message: "must NOT have more than 255 characters" },
    ]);
    const ok = await platform(s.t, "create_connect_session", {
      provider_id: "shopping",
      external_ref: "r".repeat(255),
    });
    expect(ok.status).toBe(200);
  });

  it("list_connections refuses a provider_id that can have no connections, rather than answering an empty list", async () => {
    for (const provider_id of ["nope", "catalog"]) {
      const listed = await platform(s.t, "list_connections", { provider_id, limit: 101 });
      expect(listed.status, provider_id).toBe(400);
      expect(listed.body.error.details, provider_id).toEqual([
        { path: "/limit", message: "must be <= 100" },
        { path: "/provider_id", message: "is not a provider with credentials operations" },
      ]);
      // Alone, the rule says the message: one that names no provider is not called a provider, and the id is quoted.
      const alone = await platform(s.t, "list_connections", { provider_id });
      expect(alone.body.error.message).toBe(`There is no provider "${provider_id}" with connections`);
    }
    // An id of the allowed characters that does not begin with a letter is told so.
    const digitFirst = await platform(s.t, "list_connections", { provider_id: "1shop" });
    expect(digitFirst.body.error.details).toEqual([
      {
        path: "/provider_id",
        message: "must be a provider id: a lower-case letter, then lower-case letters, digits or underscores",
      },
    ]);
  });

  it("lists every problem of the input at once: the provider and the reference, the page size and the cursor", async () => {
    const both = await platform(s.t, "create_connect_session", { provider_id: "nope", external_ref: "" });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toBe("The input of platform:create_connect_session is invalid");
    expect(both.body.error.details).toEqual([
      { path: "/external_ref", message: "must NOT have fewer than 1 characters" },
      { path: "/provider_id", message: "is not a provider with credentials operations" },
    ]);
    const page = await platform(s.t, "list_connections", { limit: 101, cursor: "garbage" });
    expect(page.status).toBe(400);
    expect(page.body.error.details).toEqual([
      { path: "/limit", message: "must be <= 100" },
      { path: "/cursor", message: "is not valid" },
    ]);
    const cursorOnly = await platform(s.t, "list_connections", { cursor: "garbage" });
    expect(cursorOnly.body.error).toMatchObject({
      message: "The cursor is not one this list returned",
      details: [{ path: "/cursor", message: "is not valid" }],
      fix: "Pass pagination.next_cursor of the previous page unchanged, with the same key's account and operation.",
    });
  });
});

describe("deleted connections", () => {
  it("keep their row, tokens erased, for 30 days after their deletion, then the purge deletes it; live ones stay", async () => {
    const { connection: live } = await connect(s.t, "purge_live");
    const { connection } = await connect(s.t, "purge_deleted");
    expect((await platform(s.t, "delete_connection", { connection_id: connection.id })).status).toBe(200);
    const { connections } = s.t.gateway.core;
    const ids = () =>
      s.t.gateway.core.store.db
        .selectFrom("connections")
        .select("id")
        .where("id", "in", [live.id, connection.id])
        .orderBy("id")
        .execute()
        .then((rows) => rows.map((row) => row.id));

    s.clock.advance(30 * 24 * 3600_000 - 1);
    await connections!.purgeDeleted();
    expect(await ids()).toEqual([live.id, connection.id].sort());
    s.clock.advance(1);
    expect(await connections!.purgeDeleted()).toBeGreaterThanOrEqual(1);
    expect(await ids()).toEqual([live.id]);
    // Its id answers as it did once deleted: 404, as an unknown id.
    const gone = await platform(s.t, "get_connection", { connection_id: connection.id });
    expect([gone.status, gone.body.error.code]).toEqual([404, "not_found"]);
    expect((await platform(s.t, "get_connection", { connection_id: live.id })).status).toBe(200);
  });
});
