// docs/console.md, "Developing it": the console's Vite dev server, with live reload, hands the console API to the
// gateway on GATEWAY_URL. A user signs in and runs an operation through it as through the gateway itself.
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { ViteDevServer } from "vite";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestGateway } from "../harness.ts";
import { ConsoleClient, createUser, startConsoleGateway } from "./console-client.ts";

let t: TestGateway;
let vite: ViteDevServer;
let devOrigin: string;

beforeAll(async () => {
  t = await startConsoleGateway({ env: { GATEWAY_NO_WEBHOOK_WORKER: "1" } });
  await createUser(t, "dev@example.com");
  process.env.GATEWAY_URL = t.url;
  const { createServer } = await import("vite");
  const root = path.resolve(import.meta.dirname, "../../../console");
  vite = await createServer({
    configFile: path.join(root, "vite.config.ts"),
    root,
    server: { port: 0, host: "127.0.0.1" },
    logLevel: "silent",
  });
  await vite.listen();
  const address = vite.httpServer?.address() as AddressInfo;
  devOrigin = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await vite?.close();
  await t?.close();
});

it("signs in and runs an operation through the dev server's proxy", async () => {
  const client = new ConsoleClient(devOrigin);
  const signedIn = await client.signIn("dev@example.com");
  expect(signedIn.status).toBe(200);
  const keys = await client.operation("list_api_keys");
  expect(keys.status).toBe(200);
  expect(keys.body.data.api_keys.length).toBeGreaterThan(0);
  const page = await fetch(`${devOrigin}/console/`);
  expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html"]);
});
