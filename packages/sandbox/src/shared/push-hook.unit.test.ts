// A sandbox's hook to the gateway, retried while the gateway cannot take it (down, a 429 or a 5xx): 12 tries by
// default, so that a restart of the gateway loses no change; a refusal (4xx) ends it at once.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPushHook } from "./push-hook.ts";

let tries = 0;
let failFirst = 0;
let status = 503;
const server = http.createServer((request, response) => {
  request.resume();
  tries++;
  response.writeHead(tries <= failFirst ? status : 204).end();
});
let url = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/test`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const push = () =>
  createPushHook({ url: () => url, secret: "whsec_test" }, { baseDelayMs: 1, maxDelayMs: 4 })("thing.updated", {});

it("retries a hook the gateway cannot take yet, up to 12 tries", async () => {
  [tries, failFirst, status] = [0, 11, 503];
  expect(await push()).toBe(true);
  expect(tries).toBe(12);
  [tries, failFirst, status] = [0, 100, 429];
  expect(await push()).toBe(false);
  expect(tries).toBe(12);
});

it("stops at once when the gateway refuses the hook", async () => {
  [tries, failFirst, status] = [0, 100, 401];
  expect(await push()).toBe(false);
  expect(tries).toBe(1);
});
