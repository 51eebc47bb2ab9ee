// The browser binding of connect flows over real HTTP: flows of several sessions in one browser stay independent, a
// started flow continues when its link is opened again in the same browser, two Continue presses at once leave the
// browser able to go on, and another site's form cannot skip the start page that names who asks for access.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FormBrowser, formsOf, type Page, textOf } from "../../src/cli/form-browser.ts";
import { createSession, platform, type ShoppingSetup, startShopping } from "./setup.ts";

let s: ShoppingSetup;
beforeAll(async () => {
  s = await startShopping();
});
afterAll(async () => s?.close());

const statusOf = async (externalRef: string) =>
  (
    await s.t.gateway.core.store.db
      .selectFrom("connect_sessions")
      .select("status")
      .where("external_ref", "=", externalRef)
      .executeTakeFirstOrThrow()
  ).status;
const connectionsOf = async (externalRef: string) =>
  (await platform(s.t, "list_connections", { external_ref: externalRef })).body.data.connections;

/** Opens the link and presses Continue: answers the shop's sign-in page. */
async function continueTo(browser: FormBrowser, connectUrl: string): Promise<Page> {
  const start = await browser.get(connectUrl);
  const page = await browser.submit(start, formsOf(start.html)[0]!);
  expect(textOf(page.html)).toContain("Sign in");
  return page;
}

/** Signs in as demo on the shop's page and allows access: answers the gateway's last page. */
async function signInAndAllow(browser: FormBrowser, signIn: Page): Promise<Page> {
  const consent = await browser.submit(signIn, formsOf(signIn.html)[0]!, { username: "demo", password: "demo" });
  const form = formsOf(consent.html)[0]!;
  return browser.submit(
    consent,
    form,
    {},
    form.buttons.find((b) => b.value === "allow"),
  );
}

/** The names of the connect flows' binding cookies the browser holds for the gateway. */
const bindings = (browser: FormBrowser, connectUrl: string) =>
  browser.cookieNames(connectUrl).filter((name) => name.startsWith("gateway_connect_"));

const post = (url: string, headers: Record<string, string>, body = "") =>
  fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body,
  });

describe("the browser binding", () => {
  it("keeps the flows of two sessions in one browser apart, whichever finishes first", async () => {
    const browser = new FormBrowser();
    const first = await createSession(s.t, "tabs_first");
    const second = await createSession(s.t, "tabs_second");
    const firstSignIn = await continueTo(browser, first.connect_url);
    const secondSignIn = await continueTo(browser, second.connect_url);
    expect(bindings(browser, first.connect_url)).toHaveLength(2);

    const firstDone = await signInAndAllow(browser, firstSignIn);
    expect([firstDone.status, textOf(firstDone.html)]).toEqual([200, expect.stringContaining("is connected")]);
    const secondDone = await signInAndAllow(browser, secondSignIn);
    expect([secondDone.status, textOf(secondDone.html)]).toEqual([200, expect.stringContaining("is connected")]);
    expect(await connectionsOf("tabs_first")).toHaveLength(1);
    expect(await connectionsOf("tabs_second")).toHaveLength(1);
    // Each flow's end removes its binding cookie (Max-Age=0), rather than leaving an empty one until the session expires.
    expect(bindings(browser, first.connect_url)).toEqual([]);
  });

  it("continues a started flow when its link is opened again in the same browser", async () => {
    const browser = new FormBrowser();
    const session = await createSession(s.t, "reopened");
    await continueTo(browser, session.connect_url);
    await continueTo(browser, (await createSession(s.t, "reopened_other")).connect_url);
    const again = await browser.get(session.connect_url);
    expect([again.status, textOf(again.html)]).toEqual([200, expect.stringContaining("Connect your Sakura Market")]);
    // Another browser still cannot take it over.
    expect((await new FormBrowser().get(session.connect_url)).status).toBe(400);
    const signIn = await browser.submit(again, formsOf(again.html)[0]!);
    const done = await signInAndAllow(browser, signIn);
    expect(done.status).toBe(200);
    expect(await connectionsOf("reopened")).toHaveLength(1);
  });

  it("leaves a browser that pressed Continue twice at once able to go on", async () => {
    const session = await createSession(s.t, "double_click");
    const start = await new FormBrowser().get(session.connect_url);
    const form = new URLSearchParams(formsOf(start.html)[0]!.fields).toString();
    const answers = await Promise.all([post(session.connect_url, {}, form), post(session.connect_url, {}, form)]);
    const cookies = answers.map((a) => a.headers.getSetCookie().find((c) => c.startsWith("gateway_connect_")));
    for (const answer of answers) expect([200, 303]).toContain(answer.status);
    expect(cookies[0]).toBeDefined();
    expect(cookies[1]?.split(";")[0]).toBe(cookies[0]?.split(";")[0]);
    // Whichever answer the browser kept, its cookie continues the flow.
    const cookie = cookies[0]!.split(";")[0]!;
    const reopened = await fetch(session.connect_url, { headers: { cookie } });
    expect(reopened.status).toBe(200);
    const restarted = await post(session.connect_url, { cookie });
    expect(restarted.status).toBe(303);
    expect(await statusOf("double_click")).toBe("started");
  });

  it("answers another site's form with the start page, and starts nothing", async () => {
    const session = await createSession(s.t, "cross_site");
    for (const headers of [
      { "sec-fetch-site": "cross-site", origin: "http://127.0.0.1:19250" },
      { "sec-fetch-site": "same-site", origin: "null" },
      { origin: "http://127.0.0.1:19250" },
    ]) {
      const answer = await post(session.connect_url, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(200);
      expect(answer.headers.get("location")).toBeNull();
      expect(answer.headers.getSetCookie()).toEqual([]);
      expect(answer.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(textOf(await answer.text())).toContain("asks for access to your Sakura Market account");
    }
    expect(await statusOf("cross_site")).toBe("pending");
    // The page's own form: same-origin, with the Origin a page without a Referer sends.
    const own = await post(session.connect_url, { "sec-fetch-site": "same-origin", origin: "null" });
    expect(own.status).toBe(303);
    const fromGateway = await post((await createSession(s.t, "own_origin")).connect_url, {
      origin: s.t.config.publicUrl,
    });
    expect(fromGateway.status).toBe(303);
  });
});
