// Idempotency-Key over real HTTP: byte-for-byte replay, reuse and in-progress conflicts, waiting for the
// first request, 24-hour retention on a fake clock, nothing stored for answers that executed nothing, lease takeover.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { idempotencyKeyHash, requestFingerprint } from "../../core/idempotency/key.ts";
import { createTestkit } from "./testkit.ts";

const day = 24 * 60 * 60 * 1000;
const kit = createTestkit();
// Moves forward only, like time: the limiter and the lease see a consistent clock.
const clock = { offset: 0, now: () => Date.now() + clock.offset };
let t: TestGateway;
let quick: TestGateway;

// Rate limits are not what these tests are about (the 429 case uses a key with a limit of its own).
const unlimited = { GATEWAY_RATE_LIMIT_PER_MINUTE: "1000000", GATEWAY_RATE_LIMIT_BURST: "100000" };

beforeAll(async () => {
  t = await startTestGateway({ providers: kit.providers, clock, env: unlimited });
  quick = await startTestGateway({
    providers: kit.providers,
    env: { ...unlimited, GATEWAY_IDEMPOTENCY_WAIT_MS: "300" },
  });
});
afterAll(async () => {
  await t?.close();
  await quick?.close();
});

let counter = 0;
const newKey = () => `test-${Date.now()}-${++counter}`;

async function post(gateway: TestGateway, path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${gateway.key}`, "content-type": "application/json", ...headers },
    body,
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, json: JSON.parse(bytes.toString()) };
}

const executions = (id: string) => kit.executions.get(id) ?? 0;

describe("replay", () => {
  it("answers a repeat with the first response, byte for byte, marked Idempotent-Replayed", async () => {
    const key = newKey();
    const before = executions("counter");
    const first = await post(t, "/v1/testkit/counter", '{"value":"replay"}', { "idempotency-key": key });
    const again = await post(t, "/v1/testkit/counter", '{"value":"replay"}', { "idempotency-key": key });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    expect(executions("counter")).toBe(before + 1);
  });

  it("stores a 502 once execution started, with its original request_id in the body", async () => {
    const key = newKey();
    const before = executions("unavailable");
    const first = await post(t, "/v1/testkit/unavailable", "{}", { "idempotency-key": key });
    const again = await post(t, "/v1/testkit/unavailable", "{}", { "idempotency-key": key });
    expect(first.status).toBe(502);
    expect(first.json.error).toMatchObject({ code: "provider_unavailable", provider: "testkit", retryable: true });
    expect(again.status).toBe(502);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(again.json.error.request_id).toBe(first.headers.get("x-request-id"));
    expect(executions("unavailable")).toBe(before + 1);
  });

  it("stores a 500 of an operation that ran, and replays it rather than running the operation again", async () => {
    const key = newKey();
    const before = executions("crash");
    const first = await post(t, "/v1/testkit/crash", "{}", { "idempotency-key": key });
    expect(first.status).toBe(500);
    expect(first.json.error.code).toBe("internal_error");
    const again = await post(t, "/v1/testkit/crash", "{}", { "idempotency-key": key });
    expect(again.status).toBe(500);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(executions("crash")).toBe(before + 1);
  });

  it('accepts the key as a structured-field string: "k" is the key k', async () => {
    const key = newKey();
    const first = await post(t, "/v1/testkit/counter", '{"value":"sf"}', { "idempotency-key": key });
    const quoted = await post(t, "/v1/testkit/counter", '{"value":"sf"}', { "idempotency-key": `"${key}"` });
    expect(quoted.headers.get("idempotent-replayed")).toBe("true");
    expect(quoted.bytes.equals(first.bytes)).toBe(true);
  });

  it("works for read-only operations and ignores the header on GET", async () => {
    const key = newKey();
    const first = await post(t, "/v1/platform/list_api_keys", "{}", { "idempotency-key": key });
    const again = await post(t, "/v1/platform/list_api_keys", "{}", { "idempotency-key": key });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.bytes.equals(first.bytes)).toBe(true);
    const catalogue = await fetch(`${t.url}/v1/operations`, {
      headers: { authorization: `Bearer ${t.key}`, "idempotency-key": key },
    });
    expect(catalogue.status).toBe(200);
    expect(catalogue.headers.get("idempotent-replayed")).toBeNull();
  });

  it("keeps the stored response sealed: neither the key nor a secret of the answer is readable in the store", async () => {
    const key = newKey();
    const created = await post(t, "/v1/platform/create_api_key", '{"scopes":["testkit"]}', { "idempotency-key": key });
    const replay = await post(t, "/v1/platform/create_api_key", '{"scopes":["testkit"]}', { "idempotency-key": key });
    expect(replay.json.data.key).toBe(created.json.data.key);
    const row = await t.gateway.core.store.db
      .selectFrom("idempotency_keys")
      .selectAll()
      .where("key_hash", "=", idempotencyKeyHash(key))
      .executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(created.json.data.key);
    expect(stored).not.toContain(Buffer.from(created.json.data.key).toString("base64"));
  });
});

describe("concurrency", () => {
  it("executes once for a key sent many times at once, and once per key for many keys at once", async () => {
    const key = newKey();
    const before = executions("counter");
    const same = await Promise.all(
      Array.from({ length: 10 }, () => post(t, "/v1/testkit/counter", '{"value":"burst"}', { "idempotency-key": key })),
    );
    expect(same.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(same.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(9);
    for (const answer of same) expect(answer.bytes.equals(same[0]?.bytes as Buffer)).toBe(true);
    expect(executions("counter")).toBe(before + 1);

    const keys = Array.from({ length: 20 }, () => newKey());
    const distinct = await Promise.all(
      keys.map((k) => post(t, "/v1/testkit/counter", '{"value":"many"}', { "idempotency-key": k })),
    );
    expect(distinct.every((a) => a.status === 200 && a.headers.get("idempotent-replayed") === null)).toBe(true);
    expect(executions("counter")).toBe(before + 21);
    const again = await Promise.all(
      keys.map((k) => post(t, "/v1/testkit/counter", '{"value":"many"}', { "idempotency-key": k })),
    );
    for (const [i, answer] of again.entries()) expect(answer.bytes.equals(distinct[i]?.bytes as Buffer)).toBe(true);
    expect(executions("counter")).toBe(before + 21);
  });
});

describe("malformed keys", () => {
  it.each([
    ["", "must not be empty"],
    ["x".repeat(256), "must be 1 to 255 printable ASCII characters"],
    ["caf\u00e9", "must be 1 to 255 printable ASCII characters"],
    ['"unterminated', "is not a valid quoted string"],
    ['"bad\\escape"', "is not a valid quoted string"],
  ])("refuses %j with 400 invalid_request", async (value, reason) => {
    const answer = await post(t, "/v1/testkit/counter", '{"value":"m"}', { "idempotency-key": value });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({
      code: "invalid_request",
      message: `The Idempotency-Key header ${reason}`,
      details: [{ path: "/headers/idempotency-key", message: reason }],
    });
  });

  it("accepts 255 printable characters", async () => {
    const key = `${newKey()}-`.padEnd(255, "~");
    expect((await post(t, "/v1/testkit/counter", '{"value":"long"}', { "idempotency-key": key })).status).toBe(200);
  });
});

describe("409 conflict", () => {
  it("refuses the same key for a different body, path or connection: idempotency_key_reused", async () => {
    const key = newKey();
    expect((await post(t, "/v1/testkit/counter", '{"value":"one"}', { "idempotency-key": key })).status).toBe(200);
    const variants = [
      ["/v1/testkit/counter", '{"value":"two"}', {}],
      ["/v1/testkit/counter", '{ "value":"one"}', {}],
      ["/v1/testkit/gate", '{"value":"one"}', {}],
      ["/v1/testkit/counter", '{"value":"one"}', { "x-gateway-connection-id": `conn_${"A".repeat(22)}` }],
    ] as const;
    for (const [path, body, headers] of variants) {
      const answer = await post(t, path, body, { "idempotency-key": key, ...headers });
      expect(answer.status).toBe(409);
      expect(answer.json).toEqual({
        error: {
          code: "conflict",
          message: "This Idempotency-Key was already used for a different request",
          request_id: answer.headers.get("x-request-id"),
          retryable: false,
          details: { reason: "idempotency_key_reused" },
          fix: expect.any(String),
        },
      });
    }
  });

  it("waits for a running first request, then answers 409 idempotency_in_progress; later repeats replay", async () => {
    kit.gate.reset();
    const key = newKey();
    const first = post(quick, "/v1/testkit/gate", '{"value":"slow"}', { "idempotency-key": key });
    await kit.gate.entered;
    const second = await post(quick, "/v1/testkit/gate", '{"value":"slow"}', { "idempotency-key": key });
    expect(second.status).toBe(409);
    expect(second.json.error).toMatchObject({
      code: "conflict",
      message: "A request with this Idempotency-Key is still running",
      retryable: false,
      details: { reason: "idempotency_in_progress" },
    });
    kit.gate.open();
    const done = await first;
    const third = await post(quick, "/v1/testkit/gate", '{"value":"slow"}', { "idempotency-key": key });
    expect(done.status).toBe(200);
    expect(third.headers.get("idempotent-replayed")).toBe("true");
    expect(third.bytes.equals(done.bytes)).toBe(true);
  });
});

describe("waiting", () => {
  it("replays the first response to a repeat that arrived while it ran", async () => {
    kit.gate.reset();
    const key = newKey();
    const before = executions("gate");
    const first = post(t, "/v1/testkit/gate", '{"value":"wait"}', { "idempotency-key": key });
    await kit.gate.entered;
    const second = post(t, "/v1/testkit/gate", '{"value":"wait"}', { "idempotency-key": key });
    await until(async () => (await t.gateway.metrics.idempotencyWaiting.get()).values[0]?.value === 1);
    kit.gate.open();
    const [a, b] = await Promise.all([first, second]);
    expect(a.status).toBe(200);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect(executions("gate")).toBe(before + 1);
  });
});

describe("a repeat whose client leaves while it waits", () => {
  it("stops waiting (and polling the store) when its connection closes, and runs nothing", async () => {
    kit.gate.reset();
    const key = newKey();
    const before = executions("gate");
    const first = post(t, "/v1/testkit/gate", '{"value":"left"}', { "idempotency-key": key });
    await kit.gate.entered;
    const waitingNow = async () => (await t.gateway.metrics.idempotencyWaiting.get()).values[0]?.value;
    const { port, hostname } = new URL(t.url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.on("error", () => {});
    const body = '{"value":"left"}';
    socket.write(
      `POST /v1/testkit/gate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\nIdempotency-Key: ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    await until(async () => (await waitingNow()) === 1);
    socket.destroy();
    // Well within the 10 s wait, and with the first request still running.
    await until(async () => (await waitingNow()) === 0, 3_000);
    kit.gate.open();
    expect((await first).status).toBe(200);
    expect(executions("gate")).toBe(before + 1);
    const replayed = await post(t, "/v1/testkit/gate", body, { "idempotency-key": key });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
  });
});

describe("retention", () => {
  it("remembers a key for 24 hours, then treats it as new; the purge removes it", async () => {
    const key = newKey();
    const start = clock.offset;
    const first = await post(t, "/v1/testkit/counter", '{"value":"day"}', { "idempotency-key": key });
    clock.offset = start + day - 5_000;
    const late = await post(t, "/v1/testkit/counter", '{"value":"day"}', { "idempotency-key": key });
    expect(late.headers.get("idempotent-replayed")).toBe("true");
    expect(late.bytes.equals(first.bytes)).toBe(true);
    const reused = await post(t, "/v1/testkit/counter", '{"value":"other"}', { "idempotency-key": key });
    expect(reused.status).toBe(409);

    clock.offset = start + day + 1_000;
    const expiredRecords = await t.gateway.guards.idempotency.purgeExpired();
    expect(expiredRecords).toBeGreaterThanOrEqual(1);
    const fresh = await post(t, "/v1/testkit/counter", '{"value":"other"}', { "idempotency-key": key });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
    expect(fresh.json.data.value).toBe("other");
  });

  it("treats an expired record not yet purged as absent", async () => {
    const key = newKey();
    const start = clock.offset;
    await post(t, "/v1/testkit/counter", '{"value":"x"}', { "idempotency-key": key });
    clock.offset = start + day;
    const fresh = await post(t, "/v1/testkit/counter", '{"value":"y"}', { "idempotency-key": key });
    expect(fresh.status).toBe(200);
    expect(fresh.json.data.value).toBe("y");
  });
});

describe("nothing stored when nothing executed", () => {
  async function createKey(body: object) {
    const created = await post(t, "/v1/platform/create_api_key", JSON.stringify(body));
    return created.json.data.key as string;
  }

  it("400 validation failure: the key stays free", async () => {
    const key = newKey();
    const invalid = await post(t, "/v1/testkit/counter", '{"value":1}', { "idempotency-key": key });
    expect(invalid.status).toBe(400);
    const valid = await post(t, "/v1/testkit/counter", '{"value":"ok"}', { "idempotency-key": key });
    expect(valid.status).toBe(200);
    expect(valid.headers.get("idempotent-replayed")).toBeNull();
  });

  it("401: the key stays free", async () => {
    const key = newKey();
    const refused = await fetch(`${t.url}/v1/testkit/counter`, {
      method: "POST",
      headers: {
        authorization: `Bearer gwk_${"B".repeat(32)}`,
        "content-type": "application/json",
        "idempotency-key": key,
      },
      body: '{"value":"ok"}',
    });
    expect(refused.status).toBe(401);
    const valid = await post(t, "/v1/testkit/counter", '{"value":"ok"}', { "idempotency-key": key });
    expect(valid.status).toBe(200);
    expect(valid.headers.get("idempotent-replayed")).toBeNull();
  });

  it("403: the key stays free for another key of the same account", async () => {
    const key = newKey();
    const narrow = await createKey({ scopes: ["platform"] });
    const denied = await post({ ...t, key: narrow }, "/v1/testkit/counter", '{"value":"ok"}', {
      "idempotency-key": key,
    });
    expect(denied.status).toBe(403);
    const before = executions("counter");
    const valid = await post(t, "/v1/testkit/counter", '{"value":"ok"}', { "idempotency-key": key });
    expect(valid.status).toBe(200);
    expect(valid.headers.get("idempotent-replayed")).toBeNull();
    expect(executions("counter")).toBe(before + 1);
  });

  it("replays only to the key that made the request: another key of the account, even one with the scope, gets 409", async () => {
    const key = newKey();
    const first = await post(t, "/v1/platform/create_api_key", '{"scopes":["*"]}', { "idempotency-key": key });
    expect(first.status).toBe(200);
    const other = await createKey({ scopes: ["platform:create_api_key"] });
    const refused = await post({ ...t, key: other }, "/v1/platform/create_api_key", '{"scopes":["*"]}', {
      "idempotency-key": key,
    });
    expect(refused.status).toBe(409);
    expect(refused.json.error.details).toEqual({ reason: "idempotency_key_reused" });
    expect(refused.bytes.toString()).not.toContain(first.json.data.key);
  });

  it("403 before the replay: a key whose scopes do not allow the operation never receives its stored answer", async () => {
    const key = newKey();
    const first = await post(t, "/v1/platform/create_api_key", '{"scopes":["*"]}', { "idempotency-key": key });
    expect(first.status).toBe(200);
    const narrow = await createKey({ scopes: ["testkit"] });
    const denied = await post({ ...t, key: narrow }, "/v1/platform/create_api_key", '{"scopes":["*"]}', {
      "idempotency-key": key,
    });
    expect(denied.status).toBe(403);
    expect(denied.headers.get("idempotent-replayed")).toBeNull();
    expect(denied.json.error.code).toBe("scope_denied");
    expect(denied.bytes.toString()).not.toContain(first.json.data.key);
    // A key whose scopes allow it still gets the replay.
    const again = await post(t, "/v1/platform/create_api_key", '{"scopes":["*"]}', { "idempotency-key": key });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.bytes.equals(first.bytes)).toBe(true);
  });

  it("404 for an operation that does not exist: nothing ran, the key stays free", async () => {
    const key = newKey();
    for (const path of ["/v1/testkit/nope", "/v1/nope/counter"]) {
      const missing = await post(t, path, '{"value":"ok"}', { "idempotency-key": key });
      expect(missing.status).toBe(404);
      const repeat = await post(t, path, '{"value":"ok"}', { "idempotency-key": key });
      expect(repeat.headers.get("idempotent-replayed")).toBeNull();
    }
    const valid = await post(t, "/v1/testkit/counter", '{"value":"ok"}', { "idempotency-key": key });
    expect(valid.status).toBe(200);
    expect(valid.headers.get("idempotent-replayed")).toBeNull();
  });

  it("429: the key stays free", async () => {
    const key = newKey();
    const tight = await createKey({ scopes: ["*"], rate_limit: { per_minute: 1, burst: 1 } });
    expect((await post({ ...t, key: tight }, "/v1/testkit/counter", '{"value":"a"}')).status).toBe(200);
    const limited = await post({ ...t, key: tight }, "/v1/testkit/counter", '{"value":"ok"}', {
      "idempotency-key": key,
    });
    expect(limited.status).toBe(429);
    const valid = await post(t, "/v1/testkit/counter", '{"value":"ok"}', { "idempotency-key": key });
    expect(valid.status).toBe(200);
    expect(valid.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("lease", () => {
  it("takes over a running claim whose node stopped renewing it, once its lease has lapsed", async () => {
    const key = newKey();
    const body = '{"value":"orphan"}';
    const ref = { accountId: "default", keyHash: idempotencyKeyHash(key) };
    const { db } = t.gateway.core.store;
    const caller = (await db.selectFrom("api_keys").select("id").where("name", "=", "test").executeTakeFirstOrThrow())
      .id;
    const fingerprint = requestFingerprint({
      caller,
      method: "POST",
      path: "/v1/testkit/counter",
      connectionId: undefined,
      rawBody: Buffer.from(body),
    });
    // A claim as a node that then stopped would leave it: running, never renewed.
    expect((await t.gateway.guards.idempotency.claim(ref, fingerprint)).kind).toBe("claimed");
    expect((await t.gateway.guards.idempotency.claim(ref, fingerprint)).kind).toBe("running");
    clock.offset += t.gateway.guards.idempotency.timings.leaseMs;
    const taken = await post(t, "/v1/testkit/counter", body, { "idempotency-key": key });
    expect(taken.status).toBe(200);
    expect(taken.headers.get("idempotent-replayed")).toBeNull();
    const replay = await post(t, "/v1/testkit/counter", body, { "idempotency-key": key });
    expect(replay.bytes.equals(taken.bytes)).toBe(true);
  });
});

async function until(condition: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
