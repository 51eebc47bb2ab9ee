// Delegation tokens (try-it-out): minted by a signed-in user, accepted on /v1 like a key, limited to provider
// scopes, and refused once their 10 minutes are over (a fake clock moves time). Sessions end after 12 idle hours.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Users } from "../../src/core/users/users.ts";
import { providers } from "../../src/providers/registry.ts";
import { expectedError, type TestGateway } from "../harness.ts";
import { FakeClock } from "../webhooks/fake-clock.ts";
import { ConsoleClient, createUser, password, startConsoleGateway } from "./console-client.ts";

let t: TestGateway;
const clock = new FakeClock(Date.parse("2026-11-21T09:00:00.000Z"));
let client: ConsoleClient;

const call = (token: string, operation: string, body: unknown = {}) =>
  fetch(`${t.url}/v1/echo/${operation}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", origin: t.url },
    body: JSON.stringify(body),
  });

const mint = async (body: unknown = {}) => {
  const response = await client.request("POST", "/console/api/delegation-tokens", body);
  return { status: response.status, body: (await response.json()) as any };
};

beforeAll(async () => {
  t = await startConsoleGateway({ clock });
  await createUser(t, "ada@example.com");
  client = new ConsoleClient(t.url);
  await client.signIn("ada@example.com");
});
afterAll(() => t.close());

describe("delegation tokens", () => {
  it("are minted for 10 minutes with every provider but the platform", async () => {
    const minted = await mint();
    expect(minted.status).toBe(200);
    expect(minted.body.data).toEqual({
      token: expect.stringMatching(/^gwd_[0-9A-Za-z]{40}$/),
      scopes: [...providers.map((p) => p.id).filter((id) => id !== "platform"), "echo"],
      expires_at: "2026-11-21T09:10:00.000Z",
      connection: null,
    });
  });

  it("are accepted on /v1 for the user's account, within their scopes only", async () => {
    const { token } = (await mint()).body.data;
    const said = await call(token, "say", { text: "hi" });
    expect(said.status).toBe(200);
    expect(((await said.json()) as any).data).toEqual({ text: "hi", account_id: "default" });
    const platform = await fetch(`${t.url}/v1/platform/list_api_keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(platform.status).toBe(403);
    expect(((await platform.json()) as any).error).toMatchObject(expectedError("scope_denied"));
  });

  it("take a scope subset, never the platform's", async () => {
    expect((await mint({ scopes: ["echo:say"] })).body.data.scopes).toEqual(["echo:say"]);
    const { token } = (await mint({ scopes: ["echo:say"] })).body.data;
    expect((await call(token, "whoami")).status).toBe(403);
    for (const scopes of [["platform"], ["platform:create_api_key"], ["echo", "platform"]]) {
      const refused = await mint({ scopes });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject(expectedError("scope_denied"));
    }
    expect((await mint({ scopes: ["not a scope"] })).status).toBe(400);
  });

  it("refuse a connection handle that is not one", async () => {
    const refused = await mint({ connection: "connref_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" });
    expect(refused.status).toBe(404);
    expect((await mint({ connection: "conn_0123456789012345678901" })).status).toBe(404);
  });

  it("without a connection, say so on credentials operations", async () => {
    const { token } = (await mint()).body.data;
    const response = await call(token, "whoami");
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toMatchObject(expectedError("invalid_request"));
  });

  it("expire after 10 minutes", async () => {
    const { token } = (await mint()).body.data;
    clock.advance(10 * 60_000 - 1);
    expect((await call(token, "say", { text: "still" })).status).toBe(200);
    clock.advance(1);
    const expired = await call(token, "say", { text: "too late" });
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as any).error).toMatchObject({
      ...expectedError("unauthorized"),
      message: "The delegation token has expired; the console mints a new one",
    });
  });

  it("end with the session that minted them: signing out, a new password, the user's deletion", async () => {
    const users = new Users(t.gateway.core.store.db, t.gateway.core.clock);
    await createUser(t, "grace@example.com");
    const endings: [string, (browser: ConsoleClient) => Promise<unknown>][] = [
      ["signing out", (browser) => browser.request("DELETE", "/console/api/session")],
      ["a new password", () => users.setPassword("grace@example.com", "another horse battery")],
      ["the user's deletion", () => users.remove("grace@example.com")],
    ];
    let secret = password;
    for (const [ending, end] of endings) {
      const browser = new ConsoleClient(t.url);
      expect((await browser.signIn("grace@example.com", secret)).status, ending).toBe(200);
      const other = new ConsoleClient(t.url);
      await other.signIn("ada@example.com");
      const minted = await browser.request("POST", "/console/api/delegation-tokens", {});
      const { token } = ((await minted.json()) as any).data;
      const kept = ((await (await other.request("POST", "/console/api/delegation-tokens", {})).json()) as any).data;
      expect((await call(token, "say", { text: "before" })).status, ending).toBe(200);
      await end(browser);
      const refused = await call(token, "say", { text: "after" });
      expect(refused.status, ending).toBe(401);
      expect(((await refused.json()) as any).error, ending).toMatchObject({
        ...expectedError("unauthorized"),
        message: "The console session that minted this delegation token has ended; sign in again",
      });
      // Another user's session, and the tokens it minted, go on.
      expect((await call(kept.token, "say", { text: "unaffected" })).status, ending).toBe(200);
      if (ending === "a new password") secret = "another horse battery";
    }
  });

  it("are refused when malformed or unknown", async () => {
    expect((await call("gwd_short", "say", { text: "x" })).status).toBe(401);
    expect((await call(`gwd_${"a".repeat(40)}`, "say", { text: "x" })).status).toBe(401);
  });
});

describe("sessions", () => {
  it("end after 12 idle hours", async () => {
    const idle = new ConsoleClient(t.url);
    await idle.signIn("ada@example.com");
    clock.advance(12 * 3600_000 - 1000);
    expect((await idle.request("GET", "/console/api/session")).status).toBe(200);
    clock.advance(12 * 3600_000 - 1000);
    expect((await idle.request("GET", "/console/api/session")).status).toBe(200);
    clock.advance(12 * 3600_000);
    expect((await idle.request("GET", "/console/api/session")).status).toBe(401);
  });
});
