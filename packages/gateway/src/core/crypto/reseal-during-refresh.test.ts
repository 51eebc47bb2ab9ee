// A master-key re-seal that runs while a token refresh waits for the authorization server: a refresh whose answer
// carries no new refresh token (the old one stays valid, RFC 6749 §6) must not write back the refresh token as it
// read it before the re-seal (sealed under the old key, which the operator removes next). (SQLite and PostgreSQL.)
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  connect,
  rawConnection,
  type ShoppingSetup,
  shopping,
  startShopping,
} from "../../../test/connections/setup.ts";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { eventually } from "../../../test/webhooks/fake-clock.ts";
import { resealSecrets } from "./reseal.ts";
import { SecretBox } from "./secret-box.ts";

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
let s: ShoppingSetup;
let rotated: TestGateway;
let proxy: http.Server;
let proxyUrl: string;
/** Refresh answers held by the proxy, each released by its function. */
const heldRefreshes: (() => void)[] = [];

beforeAll(async () => {
  s = await startShopping({
    sandbox: { oauth: { rotateRefreshTokens: false } },
    gateway: { env: { GATEWAY_MASTER_KEY: oldKey.toString("base64") } },
  });
  // In front of the shop (the Host header kept, so that its metadata names the proxy): a refresh's answer is held
  // until the test releases it, and given without its refresh_token, as a server that does not rotate may answer.
  proxy = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const refresh = request.url === "/oauth/token" && body.toString().includes("grant_type=refresh_token");
      const upstream = new URL(s.sandboxUrl);
      const forwarded = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: request.method,
          path: request.url,
          headers: request.headers,
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => parts.push(chunk));
          answer.on("end", async () => {
            let text = Buffer.concat(parts).toString();
            if (refresh) {
              const { refresh_token: _kept, ...rest } = JSON.parse(text);
              text = JSON.stringify(rest);
              await new Promise<void>((resolve) => heldRefreshes.push(resolve));
            }
            const { "content-length": _length, "transfer-encoding": _encoding, ...headers } = answer.headers;
            response.writeHead(answer.statusCode ?? 502, headers).end(text);
          });
        },
      );
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const release of heldRefreshes) release();
  await rotated?.close();
  await s?.close();
  await new Promise((resolve) => proxy?.close(resolve));
});

const opensUnder = (key: Buffer, sealed: string | null) => {
  try {
    new SecretBox(key).open(sealed ?? "");
    return true;
  } catch {
    return false;
  }
};

it("a refresh that keeps the refresh token leaves it as the re-seal sealed it", async () => {
  const { connection } = await connect(s.t, "reseal_refresh");
  rotated = await startTestGateway({
    shareStoreWith: s.t,
    clock: s.clock,
    env: {
      GATEWAY_UPSTREAM_SHOPPING_URL: proxyUrl,
      GATEWAY_MASTER_KEY: newKey.toString("base64"),
      GATEWAY_MASTER_KEY_PREVIOUS: oldKey.toString("base64"),
    },
  });
  // The access token is past its expiry: the call refreshes it, and its answer is held once the shop has given it
  // (the refresh has read the row by then).
  s.clock.advance(16 * 60_000);
  const call = shopping(rotated, "get_cart", connection.id);
  await eventually(async () => (heldRefreshes.length === 1 ? true : undefined));
  const report = await resealSecrets(s.t.gateway.core.store.db, s.clock, {
    key: newKey,
    previous: [oldKey],
    origin: "GATEWAY_MASTER_KEY",
  });
  expect(report.resealed.connections).toBe(2);
  heldRefreshes[0]?.();
  expect((await call).status).toBe(200);
  const row = await rawConnection(s.t, connection.id);
  expect(row.token_version).toBe(1);
  expect([row.access_token, row.refresh_token].map((sealed) => opensUnder(newKey, sealed))).toEqual([true, true]);
  expect([row.access_token, row.refresh_token].map((sealed) => opensUnder(oldKey, sealed))).toEqual([false, false]);
});
