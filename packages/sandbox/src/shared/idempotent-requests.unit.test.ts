// Idempotency-Key on a sandbox's POST routes, over real HTTP: the first answer to a member's key is answered again to
// a repeat with the same parameters (marked Idempotent-Replayed) without running the route; other parameters are a
// 400; another member's same key is another request; refusals before the route, and 5xx answers, keep nothing; a key
// is forgotten after 24 hours.
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createSandboxApp } from "./app.ts";
import { idempotencyRetentionMs, idempotentRequests } from "./idempotent-requests.ts";

let now = Date.UTC(2026, 10, 27);
let runs = 0;
let failNext = false;
let hold: Promise<void> | undefined;
let app: FastifyInstance;
let base = "";

beforeAll(async () => {
  app = createSandboxApp({ providerId: "test", formatError: (error) => ({ error: error.message }) });
  await app.register(async (api) => {
    api.addHook("preHandler", async (request, reply) => {
      if (request.headers["x-member"] === undefined) return reply.code(401).send({ error: "no member" });
    });
    idempotentRequests(api, {
      scope: (request) => String(request.headers["x-member"]),
      now: () => now,
      waitMs: 500,
    });
    api.post("/things", async (request, reply) => {
      runs++;
      if (hold) await hold;
      if (failNext) {
        failNext = false;
        return reply.code(503).send({ error: "busy" });
      }
      return reply.code(201).send({ run: runs, body: request.body });
    });
  });
  base = await app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(() => app.close());

const post = async (body: unknown, headers: Record<string, string>) => {
  const response = await fetch(`${base}/things`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    replayed: response.headers.get("idempotent-replayed"),
    text: await response.text(),
  };
};

it("answers a repeat with the first answer, byte for byte, without running the route again", async () => {
  const first = await post({ amount: 100 }, { "x-member": "usr_a", "idempotency-key": "k-1" });
  expect(first).toEqual({ status: 201, replayed: null, text: `{"run":${runs},"body":{"amount":100}}` });
  const again = await post({ amount: 100 }, { "x-member": "usr_a", "idempotency-key": "k-1" });
  expect(again).toEqual({ ...first, replayed: "true" });
  // Another member's same key, and no key at all, are other requests.
  expect((await post({ amount: 100 }, { "x-member": "usr_b", "idempotency-key": "k-1" })).text).not.toBe(first.text);
  expect((await post({ amount: 100 }, { "x-member": "usr_a" })).text).not.toBe(first.text);
});

it("refuses the same key with other parameters", async () => {
  await post({ amount: 100 }, { "x-member": "usr_a", "idempotency-key": "k-2" });
  const before = runs;
  const other = await post({ amount: 200 }, { "x-member": "usr_a", "idempotency-key": "k-2" });
  expect(other).toEqual({
    status: 400,
    replayed: null,
    text: JSON.stringify({
      error: "Keys for idempotent requests can only be used with the same parameters they were first used with",
    }),
  });
  expect(runs).toBe(before);
});

it("keeps nothing for a request refused before the route, or answered 5xx", async () => {
  expect((await post({ amount: 1 }, { "idempotency-key": "k-3" })).status).toBe(401);
  failNext = true;
  expect((await post({ amount: 1 }, { "x-member": "usr_a", "idempotency-key": "k-3" })).status).toBe(503);
  const runsBefore = runs;
  const ran = await post({ amount: 1 }, { "x-member": "usr_a", "idempotency-key": "k-3" });
  expect([ran.status, ran.replayed, runs]).toEqual([201, null, runsBefore + 1]);
});

it("forgets a key after 24 hours", async () => {
  const first = await post({ amount: 5 }, { "x-member": "usr_a", "idempotency-key": "k-4" });
  now += idempotencyRetentionMs;
  const later = await post({ amount: 5 }, { "x-member": "usr_a", "idempotency-key": "k-4" });
  expect([later.status, later.replayed]).toEqual([201, null]);
  expect(later.text).not.toBe(first.text);
});

/** Holds the route's next run until the returned function is called. */
function holdNextRun(): () => void {
  let release = () => {};
  hold = new Promise((resolve) => {
    release = resolve;
  });
  return () => {
    hold = undefined;
    release();
  };
}

const key6 = { "x-member": "usr_a", "idempotency-key": "k-6" };

it("lets a request with the key of one still running wait for it, and answers it the first one's answer", async () => {
  const release = holdNextRun();
  const before = runs;
  const first = post({ amount: 7 }, key6);
  while (runs === before) await new Promise((resolve) => setTimeout(resolve, 5));
  const second = post({ amount: 7 }, key6);
  await new Promise((resolve) => setTimeout(resolve, 100));
  release();
  const [one, two] = await Promise.all([first, second]);
  expect([one.status, one.replayed, two.status, two.replayed]).toEqual([201, null, 201, "true"]);
  expect(two.text).toBe(one.text);
  expect(runs).toBe(before + 1);
});

it("answers 409 once the wait for the first request under the key is over", async () => {
  const release = holdNextRun();
  const before = runs;
  const key = { "x-member": "usr_a", "idempotency-key": "k-7" };
  const first = post({ amount: 8 }, key);
  while (runs === before) await new Promise((resolve) => setTimeout(resolve, 5));
  const second = await post({ amount: 8 }, key);
  expect([second.status, second.text]).toEqual([
    409,
    JSON.stringify({ error: "A request with this Idempotency-Key is still being processed" }),
  ]);
  release();
  expect((await first).status).toBe(201);
  expect(runs).toBe(before + 1);
});
