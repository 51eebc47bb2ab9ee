// Tenant isolation, walked over the whole catalogue: account A holds one object of every kind (API key, connection
// per provider, reservation, waitlist entry, order, ride, payment, event, list cursors, Idempotency-Key), and account
// B, with a key of scope `*` and connections of its own, sends each of A's ids to every operation that takes one,
// each of A's connections as X-Gateway-Connection-Id to every credentials operation, and each of A's cursors to the
// list it came from, on /v1, through the resource aliases and through B's console. Every answer must be exactly the
// answer to a made-up id of the same shape (status, headers, error envelope but the id itself), and A's objects must
// be as they were. The per-provider tests say why each 404 is what it is; this one keeps a new operation from
// slipping through.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBase62 } from "../src/core/ids.ts";
import { ConsoleClient, createUser } from "./console/console-client.ts";
import { startTestGateway, type TestGateway } from "./harness.ts";
import { answer, connectUser } from "./stateful/provider-setup.ts";
import { eventually } from "./webhooks/fake-clock.ts";
import { type Receiver, startReceiver } from "./webhooks/receiver.ts";
import { fastWorker, setEndpoint } from "./webhooks/setup.ts";

interface CatalogueOperation {
  id: string;
  auth_mode: "none" | "credentials";
  input_schema: { properties?: Record<string, unknown> };
  example: { input: Record<string, unknown> };
  aliases: { method: string; path: string }[];
}

const unlimited = { GATEWAY_RATE_LIMIT_PER_MINUTE: "1000000", GATEWAY_RATE_LIMIT_BURST: "100000" };

let t: TestGateway;
let receiver: Receiver;
let keyB: string;
/** provider id → operation id → the operation as GET /v1/operations describes it. */
const catalogue = new Map<string, Map<string, CatalogueOperation>>();
/** provider id → A's and B's connection. */
const connectionsA = new Map<string, string>();
const connectionsB = new Map<string, string>();
/** Input property naming an id → A's object of that kind. */
const idsOfA = new Map<string, string>();

const call = async (
  key: string,
  provider: string,
  operation: string,
  input: unknown,
  headers: Record<string, string> = {},
) =>
  answer(
    await fetch(`${t.url}/v1/${provider}/${operation}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(input),
    }),
  );

const asA = (provider: string, operation: string, input: unknown) =>
  call(t.key, provider, operation, input, connectionHeader(connectionsA, provider, operation));
const asB = (provider: string, operation: string, input: unknown, headers: Record<string, string> = {}) =>
  call(keyB, provider, operation, input, { ...connectionHeader(connectionsB, provider, operation), ...headers });

function connectionHeader(connections: Map<string, string>, provider: string, operation: string) {
  const id = connections.get(provider);
  return catalogue.get(provider)?.get(operation)?.auth_mode === "credentials" && id
    ? { "x-gateway-connection-id": id }
    : {};
}

/** An id of the same shape (prefix and length) that nothing in the store has. */
const madeUp = (id: string) => {
  const prefix = id.slice(0, id.lastIndexOf("_") + 1);
  return `${prefix}${randomBase62(id.length - prefix.length)}`;
};

/** Headers that differ between any two answers: the request's id, the time, the rate limit left, a renewed cookie. */
const varying = new Set(["date", "x-request-id", "ratelimit", "set-cookie"]);

/** What an answer shows, but the parts that differ by nature, with `id` written as `stand`. */
const comparable = (response: { status: number; headers: Headers; body: any }, id: string, stand: string) => {
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !varying.has(name)));
  const { request_id: _requestId, ...error } = response.body?.error ?? {};
  return {
    status: response.status,
    headers,
    body: JSON.parse(JSON.stringify({ ...response.body, error }).replaceAll(id, stand)),
  };
};

/** B sends `send(id)` with A's id and with a made-up one: the two answers must be one. */
async function expectUnknown(
  label: string,
  id: string,
  send: (id: string) => Promise<{ status: number; headers: Headers; body: any }>,
) {
  const stand = madeUp(id);
  const [foreign, unknown] = [await send(id), await send(stand)];
  expect(unknown.status, label).toBe(404);
  expect(comparable(foreign, id, stand), label).toEqual(comparable(unknown, stand, stand));
}

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestGateway({ env: { ...unlimited, ...fastWorker } });
  await t.gateway.core.accounts.ensure("other");
  keyB = (await t.gateway.core.apiKeys.create({ accountId: "other", name: "b", scopes: ["*"] })).key;
  await setEndpoint(t, receiver.url);
  // B has an endpoint of its own: what A's objects cause must reach A's alone.
  expect(
    (await call(keyB, "platform", "set_webhook_endpoint", { url: `${receiver.url}/b`, event_types: ["*"] })).status,
  ).toBe(200);

  const listed = await answer(await fetch(`${t.url}/v1/operations`, { headers: { authorization: `Bearer ${t.key}` } }));
  for (const provider of listed.body.data.providers as { id: string; operations: CatalogueOperation[] }[]) {
    catalogue.set(provider.id, new Map(provider.operations.map((operation) => [operation.id, operation])));
    if (provider.operations.some((operation) => operation.auth_mode === "credentials")) {
      connectionsA.set(provider.id, await connectUser(t, provider.id, `a_${provider.id}`));
      connectionsB.set(provider.id, await connectUser(t, provider.id, `b_${provider.id}`, "demo", keyB));
    }
  }
  idsOfA.set("connection_id", connectionsA.get("shopping") ?? "");

  const created = async (provider: string, operation: string, input: Record<string, unknown>, path: string[]) => {
    const made = await asA(provider, operation, input);
    expect(made.status, made.text).toBe(200);
    return path.reduce((value: any, name) => value[name], made.body.data) as string;
  };
  const example = (provider: string, operation: string) =>
    catalogue.get(provider)?.get(operation)?.example.input as Record<string, unknown>;
  idsOfA.set("key_id", await created("platform", "create_api_key", { scopes: ["catalog"] }, ["api_key", "id"]));
  idsOfA.set("event_id", await created("platform", "send_test_event", {}, ["event", "id"]));
  idsOfA.set(
    "reservation_id",
    await created("dining", "create_reservation", example("dining", "create_reservation"), ["id"]),
  );
  idsOfA.set("waitlist_entry_id", await created("dining", "join_waitlist", example("dining", "join_waitlist"), ["id"]));
  idsOfA.set("order_id", await created("delivery", "create_order", example("delivery", "create_order"), ["id"]));
  idsOfA.set("ride_id", await created("rides", "request_ride", example("rides", "request_ride"), ["id"]));
  idsOfA.set("payment_id", await created("payments", "create_payment", example("payments", "create_payment"), ["id"]));
  for (const product of ["prod_0008", "prod_0042"])
    await created("shopping", "watch_price", { product_id: product }, ["action"]);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** Every operation of the catalogue whose input names one of A's kinds of ids, with that input's name. */
const operationsTakingIds = () =>
  [...catalogue].flatMap(([provider, operations]) =>
    [...operations.values()].flatMap((operation) =>
      Object.keys(operation.input_schema.properties ?? {})
        .filter((name) => name.endsWith("_id") && idsOfA.has(name))
        .map((name) => ({ provider, operation, name })),
    ),
  );

/** A's objects as A reads them, to show that nothing B sent changed them. */
const snapshotOfA = async () =>
  Promise.all(
    operationsTakingIds()
      .filter(({ operation }) => operation.id.startsWith("get_"))
      .map(async ({ provider, operation, name }) => {
        const read = await asA(provider, operation.id, { [name]: idsOfA.get(name) });
        return [provider, operation.id, read.status, read.body.data];
      }),
  );

describe("another account's ids, from a key of scope *", () => {
  it("are unknown ids to every operation that takes one, on /v1 and through the aliases, and change nothing", async () => {
    const before = await snapshotOfA();
    const keysBefore = (await asA("platform", "list_api_keys", { limit: 100 })).body.data;
    const walked = operationsTakingIds();
    // Every kind of id is taken by some operation, and every stateful provider is walked.
    expect(new Set(walked.map(({ name }) => name))).toEqual(new Set(idsOfA.keys()));
    for (const { provider, operation, name } of walked) {
      const id = idsOfA.get(name) as string;
      const input = { ...operation.example.input, [name]: id };
      await expectUnknown(`${provider}:${operation.id}`, id, (sent) =>
        asB(provider, operation.id, { ...input, [name]: sent }),
      );
      for (const alias of operation.aliases.filter(({ path }) => path.includes(`{${name}}`))) {
        await expectUnknown(`${alias.method} ${alias.path}`, id, async (sent) =>
          answer(
            await fetch(`${t.url}${alias.path.replace(`{${name}}`, sent)}`, {
              method: alias.method,
              headers: { authorization: `Bearer ${keyB}`, ...connectionHeader(connectionsB, provider, operation.id) },
            }),
          ),
        );
      }
    }
    expect(await snapshotOfA()).toEqual(before);
    expect((await asA("platform", "list_api_keys", { limit: 100 })).body.data).toEqual(keysBefore);
    expect(
      (await asA("platform", "list_event_deliveries", { event_id: idsOfA.get("event_id") })).body.data.deliveries,
    ).toHaveLength(1);
  });

  it("are unknown connections as X-Gateway-Connection-Id to every credentials operation", async () => {
    const cartBefore = (await asA("shopping", "get_cart", {})).body.data;
    let walked = 0;
    for (const [provider, operations] of catalogue) {
      const id = connectionsA.get(provider);
      if (!id) continue;
      for (const operation of operations.values()) {
        if (operation.auth_mode !== "credentials") continue;
        walked++;
        await expectUnknown(`${provider}:${operation.id}`, id, (sent) =>
          call(keyB, provider, operation.id, operation.example.input, { "x-gateway-connection-id": sent }),
        );
      }
    }
    expect(walked).toBeGreaterThan(0);
    expect((await asA("shopping", "get_cart", {})).body.data).toEqual(cartBefore);
    // Another provider's connection of B's own is as unknown as A's: one answer for every connection B cannot use.
    await expectUnknown("B's rides connection to shopping", connectionsB.get("rides") as string, (sent) =>
      call(keyB, "shopping", "get_cart", {}, { "x-gateway-connection-id": sent }),
    );
  });

  it("are cursors of no list of B's", async () => {
    let walked = 0;
    for (const [provider, operations] of catalogue) {
      for (const operation of operations.values()) {
        const properties = operation.input_schema.properties ?? {};
        if (!("cursor" in properties && "limit" in properties)) continue;
        const input = { ...operation.example.input, limit: 1 };
        const first = await asA(provider, operation.id, input);
        expect(first.status, `${provider}:${operation.id} ${first.text}`).toBe(200);
        const cursor = first.body.pagination?.next_cursor as string | undefined;
        if (!cursor) continue;
        walked++;
        // A made-up cursor of the same length: what any cursor that does not open answers.
        const foreign = await asB(provider, operation.id, { ...input, cursor });
        const bogus = await asB(provider, operation.id, { ...input, cursor: randomBase62(cursor.length) });
        expect([foreign.status, foreign.body.error.details], `${provider}:${operation.id}`).toEqual([
          400,
          [{ path: "/cursor", message: "is not valid" }],
        ]);
        expect(comparable(foreign, cursor, "x"), `${provider}:${operation.id}`).toEqual(comparable(bogus, cursor, "x"));
      }
    }
    // Keys, connections, events, price watches and the providers' own lists.
    expect(walked).toBeGreaterThanOrEqual(5);
  });

  it("are unknown to B's console user, raw or as A's console handles", async () => {
    await createUser(t, "ada@a.example", "default");
    await createUser(t, "grace@b.example", "other");
    const ada = new ConsoleClient(t.url);
    const grace = new ConsoleClient(t.url);
    expect((await ada.signIn("ada@a.example")).status).toBe(200);
    expect((await grace.signIn("grace@b.example")).status).toBe(200);
    const handle = (await ada.operation("get_connection", { connection_id: idsOfA.get("connection_id") })).body.data
      .connection.id as string;
    expect(handle).toMatch(/^connref_/);
    // The console names the connection of a message by its handle for B (one per account and id): any handle stands.
    const viaConsole = async (operation: string, input: Record<string, unknown>) => {
      const response = await answer(
        await grace.request("POST", `/console/api/operations/platform/${operation}`, input),
      );
      return { ...response, body: JSON.parse(response.text.replace(/connref_[0-9A-Za-z_-]+/g, "connref_…")) };
    };
    for (const { provider, operation, name } of operationsTakingIds()) {
      if (provider !== "platform") continue;
      const id = idsOfA.get(name) as string;
      await expectUnknown(`console ${operation.id}`, id, (sent) => viaConsole(operation.id, { [name]: sent }));
    }
    // A's handle opens for A only: to B it is a handle that opens for nobody.
    for (const operation of ["get_connection", "delete_connection"]) {
      const foreign = await viaConsole(operation, { connection_id: handle });
      const altered = await viaConsole(operation, { connection_id: `${handle.slice(0, -4)}AAAA` });
      expect(comparable(foreign, handle, "x")).toEqual(comparable(altered, handle, "x"));
      expect(foreign.status).toBe(404);
    }
    const minted = await grace.request("POST", "/console/api/delegation-tokens", { connection: handle });
    expect(minted.status).toBe(404);
    expect((await ada.operation("get_connection", { connection_id: handle })).status).toBe(200);
  });
});

describe("A's events", () => {
  it("reach A's endpoint alone, and B's endpoint carries nothing of A's", async () => {
    // B's own events (a connection.created per connection) arrive at B's endpoint; A's at A's.
    const path = new URL(receiver.url).pathname;
    const delivered = (to: string) => receiver.received.filter((request) => request.path === to);
    await eventually(async () => (delivered(`${path}/b`).length >= connectionsB.size ? true : undefined));
    await eventually(async () => (delivered(path).length >= connectionsA.size + 1 ? true : undefined));
    const toB = delivered(`${path}/b`).map(({ body }) => body);
    const toA = delivered(path).map(({ body }) => body);
    const mentioning = (bodies: string[], id: string) => bodies.filter((body) => body.includes(id)).length;
    for (const id of [...idsOfA.values(), ...connectionsA.values()]) expect(mentioning(toB, id), id).toBe(0);
    for (const id of connectionsB.values()) {
      expect(mentioning(toA, id), id).toBe(0);
      expect(mentioning(toB, id), id).toBeGreaterThan(0);
    }
  });
});

describe("one Idempotency-Key in two accounts", () => {
  it("is two keys: B neither replays A's answer nor conflicts with A's use", async () => {
    const key = `order-${randomBase62(8)}`;
    const input = { amount: 1200, currency: "JPY", description: "same key" };
    const a = await call(t.key, "payments", "create_payment", input, {
      "idempotency-key": key,
      "x-gateway-connection-id": connectionsA.get("payments") as string,
    });
    const b = await call(keyB, "payments", "create_payment", input, {
      "idempotency-key": key,
      "x-gateway-connection-id": connectionsB.get("payments") as string,
    });
    // A key B used first is A's to use with another input: no 409 for A, and no replay of B's answer.
    const bOther = await call(
      keyB,
      "payments",
      "create_payment",
      { ...input, amount: 1300 },
      {
        "idempotency-key": `${key}-2`,
        "x-gateway-connection-id": connectionsB.get("payments") as string,
      },
    );
    const aAgain = await call(
      t.key,
      "payments",
      "create_payment",
      { ...input, amount: 1300 },
      {
        "idempotency-key": `${key}-2`,
        "x-gateway-connection-id": connectionsA.get("payments") as string,
      },
    );
    expect([a.status, b.status, bOther.status, aAgain.status]).toEqual([200, 200, 200, 200]);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(aAgain.headers.get("idempotent-replayed")).toBeNull();
    expect(b.body.data.id).not.toBe(a.body.data.id);
    expect(aAgain.body.data.id).not.toBe(bOther.body.data.id);
  });
});

describe("B's calls", () => {
  it("count against B alone: A's key keeps its whole burst, and A's usage counts none of them", async () => {
    const made = await asA("platform", "create_api_key", {
      scopes: ["catalog"],
      rate_limit: { per_minute: 60, burst: 3 },
    });
    expect(made.status, made.text).toBe(200);
    await createUser(t, "usage-a@a.example", "default");
    await createUser(t, "usage-b@b.example", "other");
    const [a, b] = [new ConsoleClient(t.url), new ConsoleClient(t.url)];
    expect((await a.signIn("usage-a@a.example")).status).toBe(200);
    expect((await b.signIn("usage-b@b.example")).status).toBe(200);
    const requests = async (client: ConsoleClient) =>
      ((await (await client.request("GET", "/console/api/usage?window=hour")).json()) as any).data.totals.requests;
    const [aBefore, bBefore] = [await requests(a), await requests(b)];
    for (let i = 0; i < 10; i++) {
      const answered = await asB("platform", "revoke_api_key", { key_id: made.body.data.api_key.id });
      expect(answered.status).toBe(404);
    }
    expect([await requests(a), await requests(b)]).toEqual([aBefore, bBefore + 10]);
    const first = await call(made.body.data.key, "catalog", "site_metadata", {});
    expect([first.status, first.headers.get("ratelimit")]).toEqual([200, '"default";r=2;t=1']);
  });
});
