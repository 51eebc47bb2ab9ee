// The logs of a whole connect flow and of calls with the connection name no secret: not the connect token (its
// path is logged as the route pattern), not the OAuth code or state, not the provider's tokens.
import { Writable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FormBrowser } from "../../src/cli/form-browser.ts";
import { connect, rawConnection, type ShoppingSetup, shopping, startShopping } from "./setup.ts";

const lines: string[] = [];
let s: ShoppingSetup;
beforeAll(async () => {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  s = await startShopping({ gateway: { logger: { level: "trace", stream } } });
});
afterAll(async () => s?.close());

it("keeps connect tokens, codes, state and provider tokens out of the logs", async () => {
  const browser = new FormBrowser();
  const { connection, session } = await connect(s.t, "logged", { browser });
  s.clock.advance(16 * 60_000); // a refresh, too
  expect((await shopping(s.t, "get_cart", connection.id)).status).toBe(200);
  const row = await rawConnection(s.t, connection.id);
  const callback = new URL(browser.visited.at(-1)!);
  const secrets = [
    session.token,
    callback.searchParams.get("code")!,
    callback.searchParams.get("state")!,
    s.t.gateway.core.secretBox.open(row.access_token!),
    s.t.gateway.core.secretBox.open(row.refresh_token!),
  ];
  const log = lines.join("");
  expect(log).toContain('"path":"/connect/:token"');
  expect(log).toContain('"path":"/connect/callback"');
  for (const secret of secrets) expect(log).not.toContain(secret);
});
