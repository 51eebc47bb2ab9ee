// API keys over real HTTP: 401 and 403 exactly, with no provider field; scopes, revocation, expiry.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => t?.close());

async function call(key: string | undefined, operation: string, body: unknown = {}, scheme = "Bearer") {
  const response = await fetch(`${t.url}/v1/platform/${operation}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key !== undefined && { authorization: `${scheme} ${key}` }) },
    body: JSON.stringify(body),
  });
  return { response, json: (await response.json()) as Record<string, any> };
}

async function createKey(scopes: string[], extra: Record<string, unknown> = {}) {
  const { json } = await call(t.key, "create_api_key", { scopes, ...extra });
  return json.data as { key: string; api_key: { id: string } };
}

function expectAuthError(
  result: { response: Response; json: Record<string, any> },
  status: number,
  code: string,
  message: string,
) {
  expect(result.response.status).toBe(status);
  // RFC 9110 §11.6.1: a 401 names the scheme to authenticate with (RFC 6750 §3); a 403 does not.
  expect(result.response.headers.get("www-authenticate")).toBe(status === 401 ? 'Bearer realm="gateway"' : null);
  expect(result.json).toEqual({
    error: {
      code,
      message,
      request_id: result.response.headers.get("x-request-id"),
      retryable: false,
      fix: expect.any(String),
    },
  });
}

describe("401 unauthorized", () => {
  it("refuses a missing key", async () => {
    expectAuthError(
      await call(undefined, "list_api_keys"),
      401,
      "unauthorized",
      "Missing API key: send `Authorization: Bearer <key>`",
    );
  });
  it("refuses another scheme", async () => {
    expectAuthError(
      await call(t.key, "list_api_keys", {}, "Basic"),
      401,
      "unauthorized",
      "The Authorization header must use the Bearer scheme",
    );
  });
  it("refuses a malformed key and an unknown key", async () => {
    expectAuthError(await call("gwk_short", "list_api_keys"), 401, "unauthorized", "The API key is malformed");
    expectAuthError(
      await call(`gwk_${"A".repeat(32)}`, "list_api_keys"),
      401,
      "unauthorized",
      "The API key is not valid",
    );
  });
  it("refuses a revoked key", async () => {
    const created = await createKey(["*"]);
    expect((await call(created.key, "list_api_keys")).response.status).toBe(200);
    const revoked = await call(t.key, "revoke_api_key", { key_id: created.api_key.id });
    expect(revoked.json.data.api_key.revoked_at).toEqual(expect.any(String));
    expectAuthError(await call(created.key, "list_api_keys"), 401, "unauthorized", "The API key has been revoked");
  });
  it("lets a key revoke only keys its own scopes cover: not the key that made it, nor a wider one", async () => {
    const wide = await createKey(["*"]);
    const narrow = await createKey(["platform:revoke_api_key", "opendata"]);
    const sibling = await createKey(["opendata"]);
    expectAuthError(
      await call(narrow.key, "revoke_api_key", { key_id: wide.api_key.id }),
      403,
      "scope_denied",
      "A key can only revoke keys whose scopes its own scopes cover",
    );
    expect((await call(wide.key, "list_api_keys")).response.status).toBe(200);
    const allowed = await call(narrow.key, "revoke_api_key", { key_id: sibling.api_key.id });
    expect(allowed.json.data.api_key.revoked_at).toEqual(expect.any(String));
    // Itself, too; and an unknown id is the same 404 as for any key.
    expect((await call(narrow.key, "revoke_api_key", { key_id: "key_unknown" })).response.status).toBe(404);
    expect((await call(narrow.key, "revoke_api_key", { key_id: narrow.api_key.id })).response.status).toBe(200);
  });
  it("refuses an expired key", async () => {
    // Four seconds: the creation and the first call must both fit before the expiry, on a loaded machine too.
    const expiresAt = Date.now() + 4_000;
    const created = await createKey(["*"], { expires_at: new Date(expiresAt).toISOString() });
    expect((await call(created.key, "list_api_keys")).response.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 100));
    expectAuthError(await call(created.key, "list_api_keys"), 401, "unauthorized", "The API key has expired");
  });

  it("does not create a key that has already expired", async () => {
    const before = (await call(t.key, "list_api_keys")).json.data.api_keys.length;
    const refused = await call(t.key, "create_api_key", { scopes: ["opendata"], expires_at: "2020-01-01T00:00:00Z" });
    expect(refused.response.status).toBe(400);
    expect(refused.json).toEqual({
      error: {
        code: "invalid_request",
        message: "expires_at is not in the future",
        request_id: refused.response.headers.get("x-request-id"),
        retryable: false,
        details: [{ path: "/expires_at", message: "must be later than now" }],
        fix: "Give a time after now, or no expires_at for a key that does not expire.",
      },
    });
    expect((await call(t.key, "list_api_keys")).json.data.api_keys).toHaveLength(before);
  });

  it("reads an expiry by the offset and year written, whichever form of date-time it takes", async () => {
    const hourOffset = await call(t.key, "create_api_key", {
      scopes: ["opendata"],
      expires_at: "2099-01-01T00:00:00+09",
    });
    expect(hourOffset.response.status).toBe(200);
    expect(hourOffset.json.data.api_key.expires_at).toBe("2098-12-31T15:00:00.000Z");
    const spaced = await call(t.key, "create_api_key", {
      scopes: ["opendata"],
      expires_at: "2099-01-01 00:00:00-1100",
    });
    expect(spaced.json.data.api_key.expires_at).toBe("2099-01-01T11:00:00.000Z");
    // The year 49, not 2049: long past.
    const early = await call(t.key, "create_api_key", { scopes: ["opendata"], expires_at: "0049-06-15 12:30:15Z" });
    expect(early.response.status).toBe(400);
    expect(early.json.error.details).toEqual([{ path: "/expires_at", message: "must be later than now" }]);
  });

  it("refuses an expiry the format allows but no clock has (a leap second), storing nothing", async () => {
    const before = (await call(t.key, "list_api_keys")).json.data.api_keys.length;
    const refused = await call(t.key, "create_api_key", { scopes: ["opendata"], expires_at: "2030-12-31T23:59:60Z" });
    expect(refused.response.status).toBe(400);
    expect(refused.json).toEqual({
      error: {
        code: "invalid_request",
        message: "expires_at is not a time the gateway can read",
        request_id: refused.response.headers.get("x-request-id"),
        retryable: false,
        details: [{ path: "/expires_at", message: "must be a date-time with seconds from 00 to 59" }],
      },
    });
    expect((await call(t.key, "list_api_keys")).json.data.api_keys).toHaveLength(before);
  });
});

describe("403 scope_denied", () => {
  it("allows an operation scope and a provider scope, and refuses the rest", async () => {
    const narrow = await createKey(["platform:list_api_keys"]);
    expect((await call(narrow.key, "list_api_keys")).response.status).toBe(200);
    const denied = await call(narrow.key, "create_api_key", { scopes: ["*"] });
    expect(denied.response.status).toBe(403);
    expect(denied.json).toEqual({
      error: {
        code: "scope_denied",
        message: "This key's scopes do not allow platform:create_api_key",
        request_id: denied.response.headers.get("x-request-id"),
        retryable: false,
        fix: 'Use a key with the scope "*", "platform" or "platform:create_api_key".',
      },
    });
  });
  it("does not let a key create a key with wider scopes than its own", async () => {
    const platformOnly = await createKey(["platform"]);
    const wider = await call(platformOnly.key, "create_api_key", { scopes: ["*"] });
    expect(wider.response.status).toBe(403);
    expect(wider.json.error.code).toBe("scope_denied");
    const same = await call(platformOnly.key, "create_api_key", { scopes: ["platform:list_api_keys"] });
    expect(same.response.status).toBe(200);
    expect(same.json.data.key).toMatch(/^gwk_[0-9A-Za-z]{32}$/);
  });

  it("does not let a key create a key that outlives it, or one with more requests than its own limit", async () => {
    const expiry = new Date(Date.now() + 3_600_000).toISOString();
    const temporary = await createKey(["platform"], { expires_at: expiry });
    for (const input of [{}, { expires_at: new Date(Date.now() + 7_200_000).toISOString() }]) {
      const outliving = await call(temporary.key, "create_api_key", { scopes: ["platform"], ...input });
      expect(outliving.response.status).toBe(403);
      expect(outliving.json.error).toMatchObject({
        code: "scope_denied",
        message: `A key that expires can only create keys that expire no later than it (${expiry})`,
      });
    }
    const within = await call(temporary.key, "create_api_key", { scopes: ["platform"], expires_at: expiry });
    expect(within.response.status).toBe(200);

    const limited = await createKey(["platform"], { rate_limit: { per_minute: 5, burst: 5 } });
    for (const rate_limit of [
      { per_minute: 1_000_000, burst: 5 },
      { per_minute: 5, burst: 6 },
    ]) {
      const more = await call(limited.key, "create_api_key", { scopes: ["platform"], rate_limit });
      expect(more.response.status, JSON.stringify(rate_limit)).toBe(403);
      expect(more.json.error.message).toBe(
        "A key with a rate limit of its own can only create keys limited within it (5 a minute, bursts of 5)",
      );
    }
    // Without a limit asked, the new key has its creator's.
    const inherited = await call(limited.key, "create_api_key", { scopes: ["platform"] });
    expect(inherited.response.status).toBe(200);
    expect(inherited.json.data.api_key.rate_limit).toEqual({ per_minute: 5, burst: 5 });
    const inside = await call(limited.key, "create_api_key", {
      scopes: ["platform"],
      rate_limit: { per_minute: 5, burst: 2 },
    });
    expect(inside.response.status).toBe(200);
  });

  it("refuses scopes that name no provider or operation of this gateway, each by its place in the list", async () => {
    const before = (await call(t.key, "list_api_keys")).json.data.api_keys.length;
    const typo = await call(t.key, "create_api_key", { scopes: ["catalog", "catalgo", "catalog:product_detial"] });
    expect(typo.response.status).toBe(400);
    expect(typo.json).toEqual({
      error: {
        code: "invalid_request",
        message: "Invalid scopes",
        request_id: typo.response.headers.get("x-request-id"),
        retryable: false,
        details: [
          { path: "/scopes/1", message: '"catalgo": there is no provider "catalgo"; GET /v1/operations lists them' },
          {
            path: "/scopes/2",
            message: '"catalog:product_detial": the catalog provider has no operation "product_detial"',
          },
        ],
      },
    });
    expect((await call(t.key, "list_api_keys")).json.data.api_keys).toHaveLength(before);
  });
  it("lists the scopes' and expiry's problems with the schema's in one 400", async () => {
    const before = (await call(t.key, "list_api_keys")).json.data.api_keys.length;
    const bad = await call(t.key, "create_api_key", {
      name: 7,
      scopes: ["catalgo", "Catalog"],
      expires_at: "2001-01-01T00:00:00Z",
    });
    expect(bad.response.status).toBe(400);
    expect(bad.json).toEqual({
      error: {
        code: "invalid_request",
        message: "The input of platform:create_api_key is invalid",
        request_id: bad.response.headers.get("x-request-id"),
        retryable: false,
        details: [
          { path: "/name", message: "must be string" },
          {
            path: "/scopes/1",
            message: 'is not a scope: use "*", "<provider_id>" or "<provider_id>:<operation_id>", in lower case',
          },
          { path: "/scopes/0", message: '"catalgo": there is no provider "catalgo"; GET /v1/operations lists them' },
          { path: "/expires_at", message: "must be later than now" },
        ],
      },
    });
    expect((await call(t.key, "list_api_keys")).json.data.api_keys).toHaveLength(before);
  });

  it("says only the schema's problem of a field that fails it, not a rule's about the same value", async () => {
    const bad = await call(t.key, "create_api_key", { scopes: ["*"], expires_at: "2026-02-30T00:00:00Z" });
    expect(bad.response.status).toBe(400);
    expect(bad.json.error.message).toBe("The input of platform:create_api_key is invalid");
    expect(bad.json.error.details).toEqual([{ path: "/expires_at", message: 'must match format "date-time"' }]);
  });
});

describe("keys are stored hashed and listed without secrets", () => {
  it("never keeps the key in the store", async () => {
    const created = await createKey(["catalog"], { name: "hash check" });
    const rows = await t.gateway.core.store.db.selectFrom("api_keys").selectAll().execute();
    const serialized = JSON.stringify(rows);
    expect(serialized).not.toContain(created.key);
    expect(serialized).not.toContain(created.key.slice(4));
    const listed = await call(t.key, "list_api_keys");
    expect(JSON.stringify(listed.json)).not.toContain(created.key);
    expect(listed.json.data.api_keys[0]).toMatchObject({
      name: "hash check",
      scopes: ["catalog"],
      key_prefix: created.key.slice(0, 8),
    });
  });
});

describe("revocation reaches a second node within the cache TTL", () => {
  it("refuses the key on another node after its cache expires", async () => {
    const second = await startTestGateway({ shareStoreWith: t, env: { GATEWAY_KEY_CACHE_TTL_MS: "1000" } });
    try {
      const created = await createKey(["*"]);
      const viaSecond = () =>
        fetch(`${second.url}/v1/platform/list_api_keys`, {
          method: "POST",
          headers: { authorization: `Bearer ${created.key}` },
        });
      expect((await viaSecond()).status).toBe(200);
      await call(t.key, "revoke_api_key", { key_id: created.api_key.id });
      const deadline = Date.now() + 5000;
      let status = 200;
      while (Date.now() < deadline && status === 200) {
        status = (await viaSecond()).status;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(401);
    } finally {
      await second.close();
    }
  });
});

describe("list_api_keys", () => {
  it("pages the account's keys newest first, `limit` at a time, each key once", async () => {
    for (const name of ["page-a", "page-b", "page-c"]) await createKey(["opendata"], { name });
    const whole = (await call(t.key, "list_api_keys", { limit: 100 })).json;
    const ids = (whole.data.api_keys as { id: string }[]).map((k) => k.id);
    expect(ids.length).toBeGreaterThanOrEqual(4);
    expect(whole.pagination).toEqual({ next_cursor: null, has_more: false });
    const seen: string[] = [];
    for (let cursor: string | undefined, more = true; more; ) {
      const page = (await call(t.key, "list_api_keys", { limit: 2, ...(cursor && { cursor }) })).json;
      expect(page.data.api_keys.length).toBeLessThanOrEqual(2);
      seen.push(...(page.data.api_keys as { id: string }[]).map((k) => k.id));
      cursor = page.pagination.next_cursor ?? undefined;
      more = page.pagination.has_more;
      expect(more).toBe(cursor !== undefined);
    }
    expect(seen).toEqual(ids);
    const byDefault = (await call(t.key, "list_api_keys")).json;
    expect(byDefault.data.api_keys).toEqual(whole.data.api_keys.slice(0, 20));
    expect((await call(t.key, "list_api_keys", { limit: 0 })).response.status).toBe(400);
  });
});
