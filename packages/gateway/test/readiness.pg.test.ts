// /readyz on PostgreSQL reached through a relay that can stop passing bytes: a store that stops answering (a frozen
// server, a network partition) is "not ready" within the readiness deadline, with the 500 envelope, and ready again
// once it answers.
import net from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readinessDeadlineMs } from "../src/http/operator.ts";
import { startTestGateway, type TestGateway } from "./harness.ts";

const postgresUrl = new URL(process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test");

/** A TCP relay to PostgreSQL whose connections can be frozen (bytes held, nothing closed) and thawed. */
function startRelay() {
  const pairs: [net.Socket, net.Socket][] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(postgresUrl.port || 5432), postgresUrl.hostname);
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    pairs.push([client, upstream]);
  });
  return {
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)),
      ),
    freeze: () => {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
      }
    },
    thaw: () => {
      for (const [client, upstream] of pairs) {
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
let t: TestGateway;
beforeAll(async () => {
  const port = await relay.listen();
  const throughRelay = new URL(postgresUrl);
  throughRelay.host = `127.0.0.1:${port}`;
  const saved = process.env.GATEWAY_TEST_POSTGRES_URL;
  process.env.GATEWAY_TEST_POSTGRES_URL = throughRelay.href;
  try {
    t = await startTestGateway({ env: { GATEWAY_DATABASE_URL: throughRelay.href } });
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
    expect(frozen.json).toEqual({
      error: {
        code: "internal_error",
        message: `The store did not answer within ${readinessDeadlineMs} ms`,
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
