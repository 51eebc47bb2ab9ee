// The console session's cookie follows the session: 12 idle hours, moved forward while its user is active (as the
// server moves the session's deadline), and never past the session's 7 days. A fake clock stands for the hours.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestGateway } from "../harness.ts";
import { FakeClock } from "../webhooks/fake-clock.ts";
import { ConsoleClient, createUser, startConsoleGateway } from "./console-client.ts";

const hour = 3600_000;
const clock = new FakeClock(Date.parse("2026-11-21T09:00:00.000Z"));
let t: TestGateway;

beforeAll(async () => {
  t = await startConsoleGateway({ clock, env: { GATEWAY_NO_WEBHOOK_WORKER: "1" } });
  await createUser(t, "ada@example.com");
});
afterAll(() => t?.close());

const maxAge = (response: Response) => {
  const cookie = response.headers.get("set-cookie");
  return cookie === null ? undefined : Number(/Max-Age=(\d+)/.exec(cookie)?.[1]);
};

it("is sent again with the session's new deadline while its user is active, and the session lasts past 12 hours", async () => {
  const client = new ConsoleClient(t.url);
  const signedInAt = clock.now();
  const signedIn = await client.signIn("ada@example.com");
  expect(maxAge(signedIn)).toBe(12 * 3600);
  // The browser's view of the cookie: the Max-Age of the last Set-Cookie, counted down by the clock.
  let cookieLeft = 12 * hour;
  for (let elapsed = 6; elapsed <= 24; elapsed += 6) {
    clock.advance(6 * hour);
    cookieLeft -= 6 * hour;
    expect(cookieLeft, `the browser still holds the cookie at hour ${elapsed}`).toBeGreaterThan(0);
    const read = await client.request("GET", "/console/api/session");
    expect(read.status).toBe(200);
    expect(maxAge(read)).toBe(12 * 3600);
    cookieLeft = 12 * hour;
  }
  // Within a minute of the last move, the deadline does not move, and no cookie is sent.
  expect(maxAge(await client.request("GET", "/console/api/session"))).toBeUndefined();
  // Active until near the end of the 7 days: the last cookie lasts what is left of them, not 12 hours.
  const end = signedInAt + 7 * 24 * hour;
  let left = 0;
  while (clock.now() + 11 * hour < end) {
    clock.advance(11 * hour);
    const read = await client.request("GET", "/console/api/session");
    expect(read.status).toBe(200);
    left = maxAge(read) ?? 0;
  }
  expect(left).toBe(Math.floor((end - clock.now()) / 1000));
  expect(left).toBeLessThan(12 * 3600);
});
