// /readyz and requests on PostgreSQL reached through a relay that can stop passing bytes: a store that stops answering
// (a frozen server, a network partition) is "not ready" within the readiness deadline, with the 500 envelope, and ready
// again once it answers; a request that needs it fails within GATEWAY_DATABASE_TIMEOUT_MS instead of waiting for ever,
// and the connections left waiting are closed, so that requests succeed again on new ones.
import net from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readinessDeadlineMs } from "../src/http/operator.ts";
import { startTestGateway, type TestGateway } from "./harness.ts";

const postgresUrl = new URL(process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test");

/**
 * A TCP relay to PostgreSQL whose connections can be frozen (bytes held, nothing closed) and thawed; while frozen, new
 * connections are accepted and held too, as by a server that stopped answering.
 */
function startRelay() {
  const pairs: [net.Socket, net.Socket][] = [];
  let frozen = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(postgresUrl.port || 5432), postgresUrl.hostname);
    if (!frozen) client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    pairs.push([client, upstream]);
  });
  return {
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)),
      ),
    freeze: () => {
      frozen = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
      }
    },
    thaw: () => {
      frozen = false;
      for (const [client, upstream] of pairs) {
        if (client.destroyed || upstream.destroyed) continue;
        client.pipe(upstream).pipe(client);
      }
    },
    close: () => {
      for (const pair of pairs) for (const socket of pair) socket.destroy();
      server.close();
    },
  };
}

const relay = startRelay();
// Longer than the readiness deadline, so that /readyz still answers by its own.
const databaseTimeoutMs = 3_000;
let t: TestGateway;
beforeAll(async () => {
  const port = await relay.listen();
  const throughRelay = new URL(postgresUrl);
  throughRelay.host = `127.0.0.1:${port}`;
  const saved = process.env.GATEWAY_TEST_POSTGRES_URL;
  process.env.GATEWAY_TEST_POSTGRES_URL = throughRelay.href;
  try {
    t = await startTestGateway({
      env: { GATEWAY_DATABASE_URL: throughRelay.href, GATEWAY_DATABASE_TIMEOUT_MS: String(databaseTimeoutMs) },
    });
  } finally {
    process.env.GATEWAY_TEST_POSTGRES_URL = saved;
  }
});
afterAll(async () => {
  relay.thaw();
  await t?.close();
  relay.close();
});

const readyz = async () => {
  const response = await fetch(`${t.url}/readyz`, { signal: AbortSignal.timeout(30_000) });
  return { status: response.status, requestId: response.headers.get("x-request-id"), json: await response.json() };
};

it("answers ready while the store answers, and not ready within its deadline once the store stops answering", async () => {
  expect(await readyz()).toMatchObject({ status: 200, json: { status: "ready", store: "postgres" } });

  relay.freeze();
  for (let probe = 0; probe < 3; probe++) {
    const frozen = await readyz();
    expect(frozen.status).toBe(500);
    // Within the deadline, or at once once the connections it waited on were closed (after the database timeout).
    expect(frozen.json).toEqual({
      error: {
        code: "internal_error",
        message: expect.stringMatching(
          new RegExp(`^The store (did not answer within ${readinessDeadlineMs} ms|is not reachable)$`),
        ),
        request_id: frozen.requestId,
        retryable: false,
      },
    });
  }

  relay.thaw();
  let answer = await readyz();
  for (let tries = 0; tries < 50 && answer.status !== 200; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await readyz();
  }
  expect(answer).toMatchObject({ status: 200, json: { status: "ready", store: "postgres" } });
});

it("fails a request that needs a store that stopped answering within the database timeout, then serves on new connections", async () => {
  // A key never used yet: authenticating it reads the store.
  const { key } = await t.gateway.core.apiKeys.create({ accountId: "default", scopes: ["*"] });
  const call = async () => {
    const started = performance.now();
    const response = await fetch(`${t.url}/v1/platform/list_api_keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(30_000),
    });
    return { status: response.status, json: (await response.json()) as any, ms: performance.now() - started };
  };
  relay.freeze();
  const frozen = await call();
  expect(frozen.status).toBe(500);
  expect(frozen.json.error).toMatchObject({ code: "internal_error", retryable: false });
  expect(frozen.ms).toBeLessThan(databaseTimeoutMs + 5_000);
  relay.thaw();
  // The connections that waited were closed: requests run on new ones.
  let answer = await call();
  for (let tries = 0; tries < 20 && answer.status !== 200; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await call();
  }
  expect(answer.status).toBe(200);
  expect(answer.json.data.api_keys.length).toBeGreaterThan(0);
});
