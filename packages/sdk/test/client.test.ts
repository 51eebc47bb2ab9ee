// GatewayClient against a real gateway with its in-process sandboxes: one typed call per provider (a connected
// shopper for the credentials provider), the headers on the wire, `call`, `operations()`, and the provider faults
// the sandboxes inject: 502 retried, 409 and 422 not.
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { runConnectFlow } from "../../gateway/src/cli/connect-flow.ts";
import { startTestGateway, type TestGateway } from "../../gateway/test/harness.ts";
import {
  type CategoryNode,
  ConflictError,
  GatewayClient,
  type JsonValue,
  ProviderRejectedError,
  ProviderUnavailableError,
  SDK_VERSION,
} from "../src/index.ts";
import { recordingFetch, recordingSleep } from "./support/recording-fetch.ts";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

function client(options: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) {
  const recording = recordingFetch();
  const schedule = recordingSleep();
  const sdk = new GatewayClient({
    apiKey: gateway.key,
    baseUrl: `${gateway.url}/`,
    fetch: recording.fetch,
    sleep: schedule.sleep,
    ...options,
  });
  return { sdk, attempts: recording.attempts, waits: schedule.waits };
}

/** A connection of a new shopper at the shopping sandbox, made through the connect flow. */
async function connectShopper(externalRef: string): Promise<string> {
  const { sdk: admin } = client();
  const session = await admin.platform.createConnectSession({ provider_id: "shopping", external_ref: externalRef });
  const flow = await runConnectFlow({ connectUrl: session.data.connect_url, username: "demo", password: "demo" });
  expect(flow.ok).toBe(true);
  const listed = await admin.platform.listConnections({ external_ref: externalRef, provider_id: "shopping" });
  return listed.data.connections[0]?.id as string;
}

/** Arms the provider's sandbox: its next `count` calls answer `status`. */
async function fault(provider: string, status: number, count = 1): Promise<void> {
  const response = await fetch(`${gateway.gateway.upstreamUrls[provider]}/_sandbox/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ status, count }),
  });
  expect(response.status).toBe(201);
}

describe("a typed call per provider", () => {
  it("platform", async () => {
    const { sdk, attempts } = client();
    const created = await sdk.platform.createApiKey({ name: "typed", scopes: ["catalog"] });
    expectTypeOf(created.data.api_key.scopes).toEqualTypeOf<string[]>();
    expect(created.data.api_key).toMatchObject({ name: "typed", scopes: ["catalog"], revoked_at: null });
    expect(created).toMatchObject({ meta: { source: "platform" }, pagination: null, requestId: expect.any(String) });
    expect(created.requestId).toBe(attempts[0]?.responseHeaders["x-request-id"]);
    const { data } = await sdk.platform.revokeApiKey({ key_id: created.data.api_key.id });
    expect(data.api_key.revoked_at).toEqual(expect.any(String));
    // Every page, the way a loop over a list is written: a cursor that is undefined on the first call type-checks
    // under exactOptionalPropertyTypes, and is left out of the request.
    const ids: string[] = [];
    for (let cursor: string | undefined, more = true; more; ) {
      const page = await sdk.platform.listApiKeys({ cursor, limit: 1 });
      ids.push(...page.data.api_keys.map((key) => key.id));
      cursor = page.pagination?.next_cursor ?? undefined;
      more = page.pagination?.has_more === true;
    }
    expect(ids).toContain(created.data.api_key.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("catalog", async () => {
    const { sdk } = client();
    const { data, meta } = await sdk.catalog.productDetail({ product_id: "cat-prd-0001" });
    expectTypeOf(data).toEqualTypeOf<JsonValue>();
    expect(meta).toEqual({ source: "catalog", fetched_at: expect.any(String) });
    expect(JSON.stringify(data)).toContain("cat-prd-0001");
  });

  it("homegoods", async () => {
    const { sdk } = client();
    const { data } = await sdk.homegoods.productCategories({ depth: 1 });
    expectTypeOf(data).toEqualTypeOf<CategoryNode>();
    expect(data).toMatchObject({ id: expect.any(String), title: expect.any(String) });
  });

  it("opendata", async () => {
    const { sdk } = client();
    const { data } = await sdk.opendata.listHolidays({ year: 2026 });
    expect(data).toMatchObject({ holidays: expect.any(Array) });
  });

  it("shopping, with a connection from the options and from the client", async () => {
    const connectionId = await connectShopper("user-42");
    expect(connectionId).toMatch(/^conn_[0-9A-Za-z]{22}$/);
    const { sdk: admin } = client();
    // The event's data.object is typed as get_connection's resource, and is exactly that resource.
    const { data: events } = await admin.platform.listEvents({ type: "connection.created" });
    const { data: read } = await admin.platform.getConnection({ connection_id: connectionId });
    const created = events.events.find((e) => e.data.object.id === connectionId);
    expect(created?.data.object).toEqual(read.connection);

    const { sdk, attempts } = client();
    const added = await sdk.shopping.addCartItem({ product_id: "prod_0001", quantity: 2 }, { connectionId });
    expect(added.data).toMatchObject({ action: "add_cart_item", added: true, cart: { item_count: 1 } });
    expect(attempts[0]?.headers["x-gateway-connection-id"]).toBe(connectionId);

    const { sdk: bound } = client({ connectionId });
    const { data: cart } = await bound.shopping.getCart();
    expect(cart.cart.items).toEqual([expect.objectContaining({ product_id: "prod_0001", quantity: 2 })]);
    await expect(sdk.shopping.getCart()).rejects.toThrow(/shopping:get_cart acts on a connected account/);
  });
});

describe("on the wire", () => {
  it("sends the key, JSON, the User-Agent; an Idempotency-Key only for state changes; no connection for none-mode", async () => {
    const { sdk, attempts } = client({ connectionId: "conn_0000000000000000000000", userAgent: "checkout/2.3" });
    await sdk.opendata.lookupPostalCode({ postal_code: "1000001" });
    const [attempt] = attempts;
    expect(attempt?.url).toBe(`${gateway.url}/v1/opendata/lookup_postal_code`);
    expect(attempt?.method).toBe("POST");
    expect(attempt?.body).toBe('{"postal_code":"1000001"}');
    expect(attempt?.headers).toEqual({
      authorization: `Bearer ${gateway.key}`,
      accept: "application/json",
      "content-type": "application/json",
      "user-agent": `provider-gateway-sdk-js/${SDK_VERSION} checkout/2.3`,
    });
  });

  it("sends {} for an operation without input", async () => {
    const { sdk, attempts } = client();
    await sdk.catalog.siteMetadata();
    expect(attempts[0]?.body).toBe("{}");
  });
});

describe("call and operations()", () => {
  it("call() is typed for known operations and reaches any operation", async () => {
    const { sdk } = client();
    const typed = await sdk.call("homegoods", "product_detail", { product_id: "hgp-0001" });
    expectTypeOf(typed.data).toEqualTypeOf<CategoryNode>();
    expect(typed.meta.source).toBe("homegoods");
    const searched = await sdk.call("catalog", "search_products", { query: "米" });
    expect(searched.meta.source).toBe("catalog");
  });

  it("operations() answers the catalogue with every provider this SDK was generated from", async () => {
    const { sdk, attempts } = client();
    const catalogue = await sdk.operations();
    expect(attempts[0]).toMatchObject({ method: "GET", url: `${gateway.url}/v1/operations`, body: undefined });
    const served = catalogue.providers.map((p) => p.id);
    for (const id of ["platform", "catalog", "homegoods", "opendata", "shopping"]) expect(served).toContain(id);
    const addCartItem = catalogue.providers
      .find((p) => p.id === "shopping")
      ?.operations.find((o) => o.id === "add_cart_item");
    expect(addCartItem).toMatchObject({ auth_mode: "credentials", read_only: false });
  });
});

describe("provider faults injected in the sandbox", () => {
  it("a read-only call answered 502 is retried without a key and succeeds on the second try", async () => {
    const { sdk, attempts, waits } = client({ random: () => 0.5 });
    await fault("catalog", 503);
    const { data } = await sdk.catalog.storeDetail({ store_id: "cat-str-001" });
    expect(JSON.stringify(data)).toContain("cat-str-001");
    expect(attempts.map((a) => a.status)).toEqual([502, 200]);
    expect(attempts.every((a) => a.headers["idempotency-key"] === undefined)).toBe(true);
    expect(waits).toEqual([250]);
  });

  it("a 502 replayed for the same Idempotency-Key is final: the client stops there, and the error says so", async () => {
    const { sdk, attempts } = client();
    await fault("homegoods", 503);
    const error = await sdk.homegoods
      .productDetail({ product_id: "hgp-0001" }, { idempotencyKey: "probe-502" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ code: "provider_unavailable", status: 502, provider: "homegoods" });
    expect(error).toMatchObject({ replayed: true, retryable: false, idempotencyKey: "probe-502" });
    expect(attempts.map((a) => [a.headers["idempotency-key"], a.status])).toEqual([
      ["probe-502", 502],
      ["probe-502", 502],
    ]);
    expect(attempts[1]?.responseHeaders["idempotent-replayed"]).toBe("true");
  });

  it("a state-changing call whose 502 is replayed throws it replayed, not retryable, with the generated key", async () => {
    const connectionId = await connectShopper("user-offline");
    const { sdk, attempts, waits } = client({ random: () => 0.5 });
    const error = await sdk.shopping
      .addCartItem({ product_id: "prod_offline" }, { connectionId })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    const key = attempts[0]?.headers["idempotency-key"];
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      attempts.map((a) => [a.headers["idempotency-key"], a.status, a.responseHeaders["idempotent-replayed"]]),
    ).toEqual([
      [key, 502, undefined],
      [key, 502, "true"],
    ]);
    expect(waits).toEqual([250]);
    expect(error).toMatchObject({ provider: "shopping", replayed: true, retryable: false, idempotencyKey: key });
  });

  it("gives up after maxRetries when the provider keeps failing", async () => {
    const { sdk, attempts, waits } = client({ random: () => 1 - Number.EPSILON, maxRetries: 3 });
    await fault("opendata", 503, 10);
    await expect(sdk.opendata.listHolidays({ year: 2026 })).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(attempts).toHaveLength(4);
    expect(waits.map((ms) => Math.round(ms / 100) * 100)).toEqual([500, 1000, 2000]);
    await fetch(`${gateway.gateway.upstreamUrls.opendata}/_sandbox/faults`, { method: "DELETE" });
  });

  for (const [status, type, code] of [
    [409, ConflictError, "conflict"],
    [422, ProviderRejectedError, "provider_rejected"],
  ] as const) {
    it(`${status} ${code} is not retried`, async () => {
      const { sdk, attempts } = client();
      await fault("catalog", status);
      const error = await sdk.catalog.productReviews({ product_id: "cat-prd-0001" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
      expect(error).toMatchObject({ code, status, provider: "catalog", retryable: false });
      expect(attempts).toHaveLength(1);
    });
  }
});
