// Connections through the console never show a connection id: answers carry handles, handles work only for their
// account, and a delegation token carries the chosen connection so that a browser runs credentials operations
// without ever holding its id.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConnectFlow } from "../../src/cli/connect-flow.ts";
import { expectedError, type TestGateway } from "../harness.ts";
import { ConsoleClient, createUser, startConsoleGateway } from "./console-client.ts";

const connectionId = /conn_[0-9A-Za-z]{22}/;
let t: TestGateway;
let ada: ConsoleClient;
let grace: ConsoleClient;
let handle: string;

const fromBrowser = (token: string, operation: string, body: unknown = {}) =>
  fetch(`${t.url}/v1/shopping/${operation}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", origin: t.url },
    body: JSON.stringify(body),
  });

const mint = async (client: ConsoleClient, body: unknown) => {
  const response = await client.request("POST", "/console/api/delegation-tokens", body);
  return { status: response.status, body: (await response.json()) as any };
};

beforeAll(async () => {
  t = await startConsoleGateway();
  await createUser(t, "ada@example.com");
  await createUser(t, "grace@example.com", "other");
  ada = new ConsoleClient(t.url);
  grace = new ConsoleClient(t.url);
  await ada.signIn("ada@example.com");
  await grace.signIn("grace@example.com");
  const session = await ada.operation("create_connect_session", { provider_id: "shopping", external_ref: "user_8842" });
  expect(session.status).toBe(200);
  const flow = await runConnectFlow({ connectUrl: session.body.data.connect_url, username: "demo", password: "demo" });
  expect(flow.ok).toBe(true);
});
afterAll(() => t.close());

describe("connections in the console", () => {
  it("are listed with handles, never ids, in connections and in events", async () => {
    const listed = await ada.operation("list_connections", { external_ref: "user_8842" });
    expect(listed.status).toBe(200);
    const [connection] = listed.body.data.connections;
    expect(connection).toMatchObject({ provider_id: "shopping", external_ref: "user_8842", status: "active" });
    expect(connection.id).toMatch(/^connref_[0-9A-Za-z_-]+$/);
    handle = connection.id;
    expect(JSON.stringify(listed.body)).not.toMatch(connectionId);
    const events = await ada.operation("list_events", { type: "connection.created" });
    expect(events.body.data.events[0].data.object.id).toBe(handle);
    expect(JSON.stringify(events.body)).not.toMatch(connectionId);
    const again = await ada.operation("list_connections");
    expect(again.body.data.connections[0].id).toBe(handle);
  });

  it("take external refs that only start like a handle as they are", async () => {
    const listed = await ada.operation("list_connections", { external_ref: "connref_42" });
    expect(listed.status).toBe(200);
    expect(listed.body.data.connections).toEqual([]);
    const session = await ada.operation("create_connect_session", {
      provider_id: "shopping",
      external_ref: "connref_42",
    });
    expect(session.status).toBe(200);
  });

  it("take a handle back in place of the id", async () => {
    const got = await ada.operation("get_connection", { connection_id: handle });
    expect(got.status).toBe(200);
    expect(got.body.data.connection.id).toBe(handle);
  });

  it("refuse another account's handle as an unknown connection", async () => {
    const got = await grace.operation("get_connection", { connection_id: handle });
    expect(got.status).toBe(404);
    expect(got.body.error).toMatchObject(expectedError("not_found"));
    expect((await mint(grace, { connection: handle })).status).toBe(404);
    expect((await grace.operation("delete_connection", { connection_id: handle })).status).toBe(404);
  });

  it("let a delegation token run credentials operations from a browser without the id", async () => {
    const minted = await mint(ada, { connection: handle, scopes: ["shopping"] });
    expect(minted.status).toBe(200);
    expect(minted.body.data.connection).toBe(handle);
    expect(JSON.stringify(minted.body)).not.toMatch(connectionId);
    const token = minted.body.data.token;
    const cart = await fromBrowser(token, "get_cart");
    expect(cart.status).toBe(200);
    expect(((await cart.json()) as any).data).toMatchObject({ action: "get_cart", cart: { items: expect.any(Array) } });
    const watched = await fromBrowser(token, "watch_price", { product_id: "prod_0008", target_price: 1000 });
    expect(watched.status).toBe(200);
    const listedWatches = await (await fromBrowser(token, "list_price_watches")).text();
    expect(listedWatches).toContain(handle);
    expect(listedWatches).not.toMatch(connectionId);
    const withHeader = await fetch(`${t.url}/v1/shopping/get_cart`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        origin: t.url,
        "x-gateway-connection-id": "conn_0123456789012345678901",
      },
    });
    expect(withHeader.status).toBe(400);
  });

  it("keep an Idempotency-Key of one shopper's token from replaying to another shopper's", async () => {
    const session = await ada.operation("create_connect_session", {
      provider_id: "shopping",
      external_ref: "user_9001",
    });
    const flow = await runConnectFlow({
      connectUrl: session.body.data.connect_url,
      username: "demo2",
      password: "demo2",
    });
    expect(flow.ok).toBe(true);
    const second = (await ada.operation("list_connections", { external_ref: "user_9001" })).body.data.connections[0].id;
    const tokens = [handle, second].map(async (connection) => (await mint(ada, { connection })).body.data.token);
    const [mine, theirs] = await Promise.all(tokens);
    const add = (token: string) =>
      fetch(`${t.url}/v1/shopping/add_cart_item`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": "cart-1" },
        body: JSON.stringify({ product_id: "prod_0007" }),
      });
    expect((await add(mine)).status).toBe(200);
    const replay = await add(mine);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const other = await add(theirs);
    expect(other.status).toBe(409);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(((await other.json()) as any).error.details).toEqual({ reason: "idempotency_key_reused" });
  });

  it("page with cursors that hold no connection id, even decoded", async () => {
    const first = await ada.operation("list_connections", { limit: 1 });
    expect(first.body.data.connections).toHaveLength(1);
    const cursor = first.body.pagination.next_cursor as string;
    expect(Buffer.from(cursor, "base64url").toString("latin1")).not.toMatch(/conn_/);
    const second = await ada.operation("list_connections", { limit: 1, cursor });
    expect(second.status).toBe(200);
    expect(second.body.data.connections[0].id).not.toBe(first.body.data.connections[0].id);
    expect(JSON.stringify(second.body)).not.toMatch(connectionId);
  });

  it("stop working once the connection is deleted", async () => {
    const { token } = (await mint(ada, { connection: handle })).body.data;
    const deleted = await ada.operation("delete_connection", { connection_id: handle });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.connection).toMatchObject({ id: handle, status: "deleted" });
    const cart = await fromBrowser(token, "get_cart");
    expect(cart.status).toBe(404);
    expect(((await cart.json()) as any).error).toMatchObject(expectedError("not_found"));
  });
});

describe("an Idempotency-Key under delegation tokens", () => {
  it("is bound to the connection a token holds: the same request under another connection's token is a reused key", async () => {
    const handles: string[] = [];
    for (const externalRef of ["idem_a", "idem_b"]) {
      const session = await ada.operation("create_connect_session", {
        provider_id: "shopping",
        external_ref: externalRef,
      });
      const flow = await runConnectFlow({
        connectUrl: session.body.data.connect_url,
        username: "demo",
        password: "demo",
      });
      expect(flow.ok).toBe(true);
      handles.push(
        (await ada.operation("list_connections", { external_ref: externalRef })).body.data.connections[0].id,
      );
    }
    const [first, second] = await Promise.all(
      handles.map(async (connection) => (await mint(ada, { connection, scopes: ["shopping"] })).body.data.token),
    );
    const add = (token: string) =>
      fetch(`${t.url}/v1/shopping/add_cart_item`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          origin: t.url,
          "idempotency-key": "delegated-add-1",
        },
        body: JSON.stringify({ product_id: "prod_0001" }),
      });
    const added = await add(first);
    expect(added.status).toBe(200);
    // The same user, key and body under the first token: the first answer, replayed.
    const replayed = await add(first);
    expect([replayed.status, replayed.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    // Under the other connection's token it is another request, not the first one's answer.
    const other = await add(second!);
    expect(other.status).toBe(409);
    expect(((await other.json()) as any).error).toMatchObject({
      ...expectedError("conflict"),
      details: { reason: "idempotency_key_reused" },
    });
  });
});
