// Every answer under /connect/ is an HTML page with the connect pages' headers, never the API's JSON envelope: a link
// with a trailing slash, an over-long segment or a malformed percent-encoding, /connect itself, another method, a form
// body posted to the link.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf } from "../../src/cli/form-browser.ts";
import { createSession, type ShoppingSetup, startShopping } from "./setup.ts";

let s: ShoppingSetup;
let link: string;
beforeAll(async () => {
  s = await startShopping();
  link = (await createSession(s.t, "odd_requests")).connect_url;
});
afterAll(async () => s?.close());

async function expectPage(response: Response, status: number, text: string) {
  const html = await response.text();
  expect([response.status, textOf(html)], html).toEqual([status, expect.stringContaining(text)]);
  expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(response.headers.get("referrer-policy")).toBe("no-referrer");
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
}

describe("odd requests under /connect/", () => {
  it("answers addresses that are no page with the not-valid page", async () => {
    for (const path of [
      `${new URL(link).pathname}/`,
      `/connect/${"a".repeat(150)}`,
      "/connect",
      "/connect/callback/",
      "/connect/cst_x/more",
      "/connect/%ZZ",
    ]) {
      await expectPage(await fetch(`${s.t.url}${path}`), 404, "This connect link is not valid");
    }
    await expectPage(await fetch(`${s.t.url}/connect/${"a".repeat(150)}`, { method: "POST" }), 404, "not valid");
  });

  it("answers another method with 405 and Allow", async () => {
    for (const [method, url, allow] of [
      ["PUT", link, "GET, HEAD, POST"],
      ["DELETE", link, "GET, HEAD, POST"],
      ["PATCH", `${s.t.url}/connect/callback`, "GET, HEAD"],
      ["POST", `${s.t.url}/connect/callback`, "GET, HEAD"],
    ] as const) {
      const response = await fetch(url, { method });
      expect(response.headers.get("allow")).toBe(allow);
      await expectPage(response, 405, "Open the connect link in a browser");
    }
  });

  it("reads a form body posted to the link, ignores any other, and refuses one too large", async () => {
    const post = (body: string, type: string) =>
      fetch(link, { method: "POST", redirect: "manual", headers: { "content-type": type }, body });
    const form = await post("a=b", "application/x-www-form-urlencoded");
    expect(form.status).toBe(303);
    expect(new URL(form.headers.get("location")!).origin).toBe(s.sandboxUrl);
    // Started in that request's "browser": this one has no cookie for it.
    await expectPage(await post("{}", "application/json"), 400, "Finish in the browser you started in");
    await expectPage(await post("x".repeat(64 * 1024), "text/plain"), 413, "Open the connect link in a browser");
  });
});
