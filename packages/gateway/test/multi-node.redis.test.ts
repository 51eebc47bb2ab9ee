// Three `gateway serve` processes on one PostgreSQL database and one Redis: a burst spread over them is limited to
// the key's limit in total, one Idempotency-Key sent to all three at once executes once, a key revoked on one node
// is refused by all within 5 s, and webhook deliveries are claimed by all three workers with no event lost.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, deploymentEnv, type GatewayNode, startNode } from "./cluster.ts";

const redisUrl = process.env.GATEWAY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
let database: Awaited<ReturnType<typeof createDatabase>>;
let nodes: GatewayNode[] = [];
let admin: string;

beforeAll(async () => {
  database = await createDatabase();
  admin = (await database.createKey({ name: "admin", rateLimit: { perMinute: 1_000_000, burst: 100_000 } })).key;
  const env = {
    ...deploymentEnv(database.url, redisUrl),
    GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1",
    GATEWAY_WEBHOOK_CONCURRENCY: "1",
    GATEWAY_WEBHOOK_POLL_INTERVAL_MS: "50",
  };
  nodes = await Promise.all([startNode(env), startNode(env), startNode(env)]);
}, 180_000);

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
  await database?.drop();
}, 60_000);

async function call(node: GatewayNode, key: string, path: string, body = "{}", headers: Record<string, string> = {}) {
  const response = await fetch(`${node.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body,
  });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe("three nodes", () => {
  it("limit a burst spread over them to the key's limit in total", async () => {
    const { key } = await database.createKey({ rateLimit: { perMinute: 1, burst: 10 } });
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => call(nodes[i % 3] as GatewayNode, key, "/v1/platform/list_api_keys")),
    );
    const accepted = answers.filter((a) => a.status === 200);
    expect(accepted).toHaveLength(10);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(20);
    // One shared counter: every accepted request saw a different remaining quota, 9 down to 0.
    const remaining = accepted.map((a) => Number(/;r=(\d+);/.exec(a.headers.get("ratelimit") ?? "")?.[1]));
    expect(remaining.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
  });

  it("execute one Idempotency-Key sent to all three at once exactly once, with identical answers", async () => {
    for (let round = 0; round < 5; round++) {
      const name = `idempotent-${Date.now()}-${round}`;
      const body = JSON.stringify({ name, scopes: ["platform"] });
      const headers = { "idempotency-key": `multi-node-${name}` };
      const answers = await Promise.all(
        nodes.map((node) => call(node, admin, "/v1/platform/create_api_key", body, headers)),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(2);
      for (const answer of answers) expect(answer.bytes.equals(answers[0]?.bytes as Buffer)).toBe(true);
      const listed = await call(nodes[round % 3] as GatewayNode, admin, "/v1/platform/list_api_keys");
      const keys = JSON.parse(listed.bytes.toString()).data.api_keys as { name: string }[];
      expect(keys.filter((k) => k.name === name)).toHaveLength(1);
    }
  });

  it("refuse a key revoked on one node on every node within 5 seconds", async () => {
    const victim = await database.createKey({ rateLimit: { perMinute: 1_000_000, burst: 100_000 } });
    for (const node of nodes) expect((await call(node, victim.key, "/v1/platform/list_api_keys")).status).toBe(200);
    const revoked = await call(
      nodes[0] as GatewayNode,
      admin,
      "/v1/platform/revoke_api_key",
      JSON.stringify({ key_id: victim.id }),
    );
    expect(revoked.status).toBe(200);
    const deadline = Date.now() + 5_000;
    const refused = await Promise.all(
      nodes.map(async (node) => {
        while (Date.now() < deadline) {
          if ((await call(node, victim.key, "/v1/platform/list_api_keys")).status === 401) return true;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return false;
      }),
    );
    expect(refused).toEqual([true, true, true]);
  });

  it("deliver webhook events through all three workers, none lost, none twice", async () => {
    const receiver = await startSlowReceiver(200);
    try {
      const endpoint = await call(
        nodes[0] as GatewayNode,
        admin,
        "/v1/platform/set_webhook_endpoint",
        JSON.stringify({ url: receiver.url, event_types: ["*"] }),
      );
      expect(endpoint.status).toBe(200);
      // All events are recorded through one node; with one delivery in flight per node, three deliveries at once
      // can only come from three different workers.
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => call(nodes[0] as GatewayNode, admin, "/v1/platform/send_test_event")),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
      const created = answers.map((a) => JSON.parse(a.bytes.toString()).data.event.id as string);
      await receiver.waitFor(created.length, 30_000);
      expect([...receiver.byEvent.keys()].sort()).toEqual([...created].sort());
      expect([...receiver.byEvent.values()].every((count) => count === 1)).toBe(true);
      expect(receiver.maxInFlight).toBe(3);
    } finally {
      await receiver.close();
    }
  });
});

/** A webhook receiver that answers 200 after `delayMs` and records how many requests it held at once. */
async function startSlowReceiver(delayMs: number) {
  const byEvent = new Map<string, number>();
  let inFlight = 0;
  const state = { maxInFlight: 0, total: 0 };
  const server = http.createServer((request, response) => {
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    request.resume();
    request.on("end", () => {
      const id = String(request.headers["gateway-event-id"]);
      byEvent.set(id, (byEvent.get(id) ?? 0) + 1);
      setTimeout(() => {
        inFlight--;
        state.total++;
        response.writeHead(200).end("ok");
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    byEvent,
    get maxInFlight() {
      return state.maxInFlight;
    },
    async waitFor(count: number, timeoutMs: number) {
      const deadline = Date.now() + timeoutMs;
      while (state.total < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
