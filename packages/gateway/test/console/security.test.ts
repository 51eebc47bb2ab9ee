// Console security over real HTTP: no answer without a session, CSRF and same-origin checks on every state change,
// the session cookie's attributes, sign-out, sign-in throttling, and accounts that see nothing of each other.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectedError, type TestGateway } from "../harness.ts";
import { ConsoleClient, createUser, password, startConsoleGateway } from "./console-client.ts";

let t: TestGateway;

beforeAll(async () => {
  t = await startConsoleGateway({ env: { GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1", GATEWAY_NO_WEBHOOK_WORKER: "1" } });
  await createUser(t, "ada@example.com");
  await createUser(t, "grace@example.com", "other");
  await createUser(t, "throttled@example.com");
});
afterAll(() => t.close());

describe("console API without a session", () => {
  it.each([
    ["GET", "/console/api/session", undefined],
    ["DELETE", "/console/api/session", undefined],
    ["GET", "/console/api/catalogue", undefined],
    ["GET", "/console/api/usage?window=hour", undefined],
    ["POST", "/console/api/operations/platform/list_api_keys", {}],
    ["POST", "/console/api/operations/platform/create_api_key", { scopes: ["*"] }],
    ["POST", "/console/api/delegation-tokens", {}],
  ])("%s %s answers 401", async (method, path, body) => {
    const response = await new ConsoleClient(t.url).request(method, path, body);
    expect(response.status).toBe(401);
    const envelope = (await response.json()) as any;
    expect(envelope.error).toMatchObject(expectedError("unauthorized"));
    expect(envelope.error.request_id).toBe(response.headers.get("x-request-id"));
  });

  it.each([
    ["GET", "/console/api/delegation-tokens", "POST"],
    ["GET", "/console/api/operations/platform/list_connections", "POST"],
    ["PUT", "/console/api/delegation-tokens", "POST"],
  ])("%s %s answers 400 with Allow, not 404", async (method, path, allow) => {
    const response = await new ConsoleClient(t.url).request(method, path);
    expect(response.status).toBe(400);
    expect(response.headers.get("allow")).toBe(allow);
    expect(((await response.json()) as any).error).toMatchObject({
      ...expectedError("invalid_request"),
      message: `${method} is not allowed on ${path}; use ${allow}`,
    });
  });

  it("answers an API path that no method has with 404", async () => {
    const response = await new ConsoleClient(t.url).request("GET", "/console/api/nowhere");
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error).toMatchObject({
      ...expectedError("not_found"),
      message: "No route GET /console/api/nowhere",
    });
  });

  it("sends a console page path with a malformed percent-encoding to the console, and keeps the envelope for its API", async () => {
    const page = await fetch(`${t.url}/console/events/%ZZ`, { redirect: "manual" });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/console");
    const api = await fetch(`${t.url}/console/api/%ZZ`);
    expect(api.status).toBe(400);
    expect(((await api.json()) as any).error).toMatchObject({
      code: "invalid_request",
      message: "The request path is not valid: it has a malformed percent-encoding",
    });
  });

  it("refuses a forged cookie", async () => {
    const client = new ConsoleClient(t.url);
    client.cookie = `gateway_session=${"A".repeat(43)}`;
    expect((await client.request("GET", "/console/api/session")).status).toBe(401);
  });
});

describe("sign-in and sessions", () => {
  it("sets an HttpOnly, SameSite=Lax session cookie and answers a CSRF token", async () => {
    const client = new ConsoleClient(t.url);
    const response = await client.signIn("Ada@Example.com");
    expect(response.status).toBe(200);
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^gateway_session=[0-9A-Za-z]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax$/);
    const body = (await response.json()) as any;
    expect(body.data).toMatchObject({ user: { email: "ada@example.com" }, account_id: "default" });
    expect(body.data.csrf_token).toMatch(/^[0-9A-Za-z]{32}$/);
    // Every answer of the console API names the session's user, the sign-in's included.
    expect(response.headers.get("x-console-user")).toBe(body.data.user.id);
    const read = await client.request("GET", "/console/api/session");
    expect(read.headers.get("x-console-user")).toBe(body.data.user.id);
    const session = (await read.json()) as any;
    expect(session.data.csrf_token).toBe(body.data.csrf_token);
  });

  it("says which credential is missing and which is not a string, and signs no one in", async () => {
    for (const [body, details] of [
      [
        {},
        [
          { path: "/email", message: "is required" },
          { path: "/password", message: "is required" },
        ],
      ],
      [
        { email: ["ada@example.com"], password: { secret: password } },
        [
          { path: "/email", message: "must be a string" },
          { path: "/password", message: "must be a string" },
        ],
      ],
      [{ email: "ada@example.com", password: "" }, [{ path: "/password", message: "is required" }]],
    ] as const) {
      const response = await new ConsoleClient(t.url).request("POST", "/console/api/session", body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).error).toEqual({
        ...expectedError("invalid_request"),
        message: "Send your email and password",
        request_id: response.headers.get("x-request-id"),
        details,
      });
      expect(response.headers.get("set-cookie")).toBeNull();
    }
  });

  it("answers a wrong password and an unknown email alike", async () => {
    for (const [email, secret] of [
      ["ada@example.com", "wrong password!"],
      ["nobody@example.com", password],
    ] as const) {
      const response = await new ConsoleClient(t.url).signIn(email, secret);
      expect(response.status).toBe(401);
      expect(((await response.json()) as any).error).toMatchObject({
        code: "unauthorized",
        message: "Wrong email or password",
      });
      expect(response.headers.get("set-cookie")).toBeNull();
    }
  });

  it("takes an email in either Unicode normalization form as the same email, for sign-in and for uniqueness", async () => {
    // ガ written as one code point (U+30AC) and as カ followed by the combining voiced mark (U+30AB U+3099).
    const composed = "\u30ac@example.jp";
    const decomposed = "\u30ab\u3099@example.jp";
    await createUser(t, decomposed);
    for (const email of [composed, decomposed]) {
      const response = await new ConsoleClient(t.url).signIn(email);
      expect(response.status).toBe(200);
      expect(((await response.json()) as any).data.user.email).toBe(composed);
    }
    await expect(createUser(t, composed)).rejects.toThrow(`A console user with the email ${composed} exists already`);
  });

  it("signs out: the cookie is cleared and its session ends", async () => {
    const client = new ConsoleClient(t.url);
    await client.signIn("ada@example.com");
    const out = await client.request("DELETE", "/console/api/session");
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^gateway_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax$/);
    expect((await client.request("GET", "/console/api/session")).status).toBe(401);
    expect((await client.operation("list_api_keys")).status).toBe(401);
  });

  it("throttles sign-in per email: past 5 failures even the right password waits", async () => {
    for (let i = 0; i < 5; i++)
      expect((await new ConsoleClient(t.url).signIn("throttled@example.com", "nope nope nope")).status).toBe(401);
    const response = await new ConsoleClient(t.url).signIn("throttled@example.com");
    expect(response.status).toBe(429);
    expect(((await response.json()) as any).error).toMatchObject(expectedError("rate_limited"));
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await new ConsoleClient(t.url).signIn("ada@example.com")).status).toBe(200);
  });

  it("refuses a body nested deeper than any stack with the envelope, not a 500", async () => {
    const client = new ConsoleClient(t.url);
    await client.signIn("ada@example.com");
    const depth = 200_000;
    const response = await fetch(`${t.url}/console/api/operations/platform/list_api_keys`, {
      method: "POST",
      headers: {
        origin: t.url,
        "content-type": "application/json",
        cookie: client.cookie ?? "",
        "x-csrf-token": client.csrf ?? "",
      },
      body: `{"x":${"[".repeat(depth)}${"]".repeat(depth)}}`,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toMatchObject({
      ...expectedError("invalid_request"),
      details: [{ path: "/x", message: "is not an allowed property" }],
    });
  });

  it("counts attempts sent at once: a burst of 20 gets 5 answers and 15 refusals, the right password among them", async () => {
    await createUser(t, "burst@example.com");
    const attempts = Array.from({ length: 20 }, (_, i) =>
      new ConsoleClient(t.url).signIn("burst@example.com", i === 19 ? password : `guess number ${i}`),
    );
    const statuses = (await Promise.all(attempts)).map((response) => response.status);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    expect(statuses.filter((status) => status !== 429).every((status) => status === 401 || status === 200)).toBe(true);
  });
});

describe("CSRF", () => {
  let client: ConsoleClient;
  beforeAll(async () => {
    client = new ConsoleClient(t.url);
    await client.signIn("ada@example.com");
  });

  it.each([
    ["no token", { "x-csrf-token": "" }],
    ["a wrong token", { "x-csrf-token": "x".repeat(32) }],
    ["another origin", { origin: "https://evil.example" }],
    ["a cross-site fetch", { "sec-fetch-site": "cross-site" }],
  ])("refuses a state change with %s", async (_name, headers) => {
    const response = await client.request(
      "POST",
      "/console/api/operations/platform/create_api_key",
      { scopes: ["*"] },
      headers,
    );
    expect(response.status).toBe(403);
    expect(((await response.json()) as any).error).toMatchObject(expectedError("scope_denied"));
    const keys = await client.operation("list_api_keys");
    expect(keys.body.data.api_keys.filter((k: any) => k.name === "csrf")).toEqual([]);
  });

  it("refuses sign-out and token minting without the token", async () => {
    for (const path of ["/console/api/session", "/console/api/delegation-tokens"]) {
      const response = await client.request(
        path.endsWith("session") ? "DELETE" : "POST",
        path,
        {},
        { "x-csrf-token": "" },
      );
      expect(response.status).toBe(403);
    }
    expect((await client.request("GET", "/console/api/session")).status).toBe(200);
  });

  it("refuses a sign-in posted from another site", async () => {
    const response = await new ConsoleClient(t.url).request(
      "POST",
      "/console/api/session",
      { email: "ada@example.com", password },
      { origin: "https://evil.example" },
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("set-cookie")).toBeNull();
    // The refusal names the console's own origin and the setting it comes from (an operator behind a TLS proxy
    // without GATEWAY_PUBLIC_URL sees why every sign-in is refused).
    expect(((await response.json()) as any).error.message).toBe(
      `Requests from https://evil.example to the console API are refused: the console's origin is ${new URL(t.config.publicUrl).origin} (GATEWAY_PUBLIC_URL)`,
    );
  });

  it("accepts the state change with the token from the same origin", async () => {
    const created = await client.operation("create_api_key", { name: "csrf", scopes: ["echo"] });
    expect(created.status).toBe(200);
    expect(created.body.data.key).toMatch(/^gwk_[0-9A-Za-z]{32}$/);
  });
});

describe("accounts", () => {
  it("show one account's user nothing of another's", async () => {
    const ada = new ConsoleClient(t.url);
    await ada.signIn("ada@example.com");
    const grace = new ConsoleClient(t.url);
    await grace.signIn("grace@example.com");

    const key = (await ada.operation("create_api_key", { name: "ada's", scopes: ["*"] })).body.data;
    await ada.operation("set_webhook_endpoint", { url: "http://127.0.0.1:9/hook", event_types: ["*"] });
    const event = (await ada.operation("send_test_event")).body.data.event;
    expect((await t.call("echo", "say", { text: "hello" })).status).toBe(200);
    expect((await t.call("echo", "say", { text: "" })).status).toBe(400);

    const keys = (await grace.operation("list_api_keys")).body.data.api_keys;
    expect(keys.map((k: any) => k.id)).not.toContain(key.api_key.id);
    expect((await grace.operation("revoke_api_key", { key_id: key.api_key.id })).status).toBe(404);
    expect((await grace.operation("get_webhook_endpoint")).status).toBe(404);
    expect((await grace.operation("get_event", { event_id: event.id })).status).toBe(404);
    expect((await grace.operation("list_event_deliveries", { event_id: event.id })).status).toBe(404);
    expect((await grace.operation("redeliver_event", { event_id: event.id })).status).not.toBe(200);
    expect((await grace.operation("list_events")).body.data.events).toEqual([]);

    const usage = async (client: ConsoleClient) =>
      ((await (await client.request("GET", "/console/api/usage?window=hour")).json()) as any).data;
    expect((await usage(grace)).totals.requests).toBe(0);
    const adaUsage = await usage(ada);
    expect(adaUsage.operations).toContainEqual(
      expect.objectContaining({ provider_id: "echo", operation_id: "say", requests: 2, errors: 1 }),
    );
    expect(adaUsage.errors_by_code).toEqual([{ code: "invalid_request", status: 400, count: 1 }]);

    const token = ((await (await grace.request("POST", "/console/api/delegation-tokens", {})).json()) as any).data
      .token;
    const said = await fetch(`${t.url}/v1/echo/say`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ text: "whose?" }),
    });
    expect(((await said.json()) as any).data.account_id).toBe("other");
  });

  it("runs only platform operations through the console", async () => {
    const ada = new ConsoleClient(t.url);
    await ada.signIn("ada@example.com");
    const response = await ada.request("POST", "/console/api/operations/echo/say", { text: "x" });
    expect(response.status).toBe(404);
  });
});
