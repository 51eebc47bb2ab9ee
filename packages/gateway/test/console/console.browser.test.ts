// The console in headless Chromium against a real gateway: sign in, create a key and call the API with it, register
// a webhook endpoint on a local receiver and watch a test event's delivery attempt appear, run an operation from
// try-it-out, read usage, run the public demo, and sign out. Each page is photographed into test-artifacts/console/.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConnectFlow } from "../../src/cli/connect-flow.ts";
import type { TestGateway } from "../harness.ts";
import { type Receiver, startReceiver } from "../webhooks/receiver.ts";
import { accessibilityProblems, ensureConsoleBuilt, launchChromium, screenshot } from "./browser.ts";
import { createUser, password, startConsoleGateway } from "./console-client.ts";

let t: TestGateway;
let receiver: Receiver;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  ensureConsoleBuilt();
  [t, receiver, browser] = await Promise.all([
    startConsoleGateway({ env: { GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1" } }),
    startReceiver(() => ({ status: 200, body: "thanks" })),
    launchChromium(),
  ]);
  await createUser(t, "ada@example.com");
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  context.setDefaultTimeout(30_000);
  page = await context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await t?.close();
});

/** Another tab of the same browser signs out and signs in as `email`: the cookie both share becomes a new session's. */
async function signInInAnotherTab(email: string) {
  const other = await context.newPage();
  await other.goto(`${t.url}/console`);
  await other.getByRole("button", { name: "Sign out" }).click();
  await other.getByLabel("Email").fill(email);
  await other.getByLabel("Password").fill(password);
  await other.getByRole("button", { name: "Sign in" }).click();
  await other.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
  await other.close();
}

const nav = (label: string) =>
  page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: label }).click();

describe("the console in a browser", () => {
  it("signs in", async () => {
    await page.goto(`${t.url}/console`);
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").getByText("Wrong email or password").waitFor();
    await screenshot(page, "01-sign-in-error");
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    // The page that replaced the sign-in form has focus on its heading, so that a screen reader announces it.
    await page.waitForFunction(() => document.activeElement?.matches("h1") && document.activeElement.textContent);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("API keys");
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === "gateway_session")).toMatchObject({ httpOnly: true, sameSite: "Lax" });
  });

  it("creates a key, shows it once, and the key works over HTTP", async () => {
    await page.getByLabel("Name").fill("checkout service");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.locator("#shown-once-value");
    await shown.waitFor();
    const key = await shown.inputValue();
    expect(key).toMatch(/^gwk_[0-9A-Za-z]{32}$/);
    // The secret takes focus where it appears, selected for copying.
    await page.waitForFunction(() => document.activeElement?.id === "shown-once-value");
    await screenshot(page, "02-keys-created");
    const response = await fetch(`${t.url}/v1/echo/say`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ text: "from curl" }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).data).toEqual({ text: "from curl", account_id: "default" });
    await page.getByRole("button", { name: "I have stored it" }).click();
    const row = page.getByRole("row").filter({ hasText: "checkout service" });
    await row.waitFor();
    expect(await row.textContent()).toContain(key.slice(0, 8));
    expect(await page.locator("#shown-once-value").count()).toBe(0);
    // Focus leaves with the dismissed panel for the page's heading, not the document's body.
    await page.waitForFunction(() => document.activeElement?.matches("h1") === true);
    await screenshot(page, "03-keys-list");
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it("keeps focus on the page when a revoked key's button goes away", async () => {
    await page.getByLabel("Name").fill("short-lived");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("button", { name: "I have stored it" }).click();
    await page.getByRole("button", { name: "Revoke short-lived" }).click();
    await page.getByRole("button", { name: "Revoke key" }).click();
    await page.getByRole("row").filter({ hasText: "short-lived" }).filter({ hasText: "revoked" }).waitFor();
    expect(await page.getByRole("button", { name: "Revoke short-lived" }).count()).toBe(0);
    await page.waitForFunction(() => document.activeElement?.matches("h1") === true);
  });

  it("registers a webhook endpoint and shows a test event's delivery attempt", async () => {
    await nav("Webhook endpoint");
    await page.getByRole("heading", { level: 1, name: "Webhook endpoint" }).waitFor();
    await page.getByLabel("URL").fill(receiver.url);
    await page.getByRole("button", { name: "Register endpoint" }).click();
    const secret = await page.locator("#shown-once-value").inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    await screenshot(page, "04-webhook-secret");
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.getByRole("button", { name: "I have stored it" }).click();
    await page.getByRole("button", { name: "Send test event" }).click();
    await page.getByRole("link", { name: "See its delivery attempts" }).click();
    await page.getByRole("heading", { level: 1, name: "Event" }).waitFor();
    const attempt = page.locator("table.attempts tbody tr").first();
    await attempt.waitFor();
    expect(await attempt.locator("td[data-label=Status]").textContent()).toBe("200");
    expect(await attempt.locator("td[data-label=Response]").textContent()).toBe("thanks");
    await page.getByText("succeeded").first().waitFor();
    const [delivered] = await receiver.waitFor(1);
    expect(delivered?.path).toBe(new URL(receiver.url).pathname);
    expect(await page.getByText(String(delivered?.headers["gateway-event-id"])).first().isVisible()).toBe(true);
    await screenshot(page, "05-event-delivery");
    expect(await accessibilityProblems(page)).toEqual([]);
    // Refresh, disabled while it reads, has the focus again once it is done.
    const refresh = page.getByRole("button", { name: "Refresh" });
    await refresh.focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => {
      const active = document.activeElement;
      return active instanceof HTMLButtonElement && active.textContent === "Refresh" && !active.disabled;
    });
    await page.getByRole("button", { name: "Redeliver" }).click();
    await page.getByRole("heading", { name: "Delivery 2" }).waitFor();
    // Numbered in the order they were made: the first card is the original delivery, which succeeded.
    const cards = page.locator("article.delivery");
    expect(await cards.evaluateAll((all) => all.map((card) => card.getAttribute("aria-label")))).toEqual([
      "Delivery 1",
      "Delivery 2",
    ]);
    expect(await cards.first().getByText("succeeded").count()).toBeGreaterThan(0);
    await nav("Events");
    await page.getByRole("row").filter({ hasText: "test.event" }).first().waitFor();
    await screenshot(page, "06-events");
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it("shows every event again when Events is chosen while a type filters them", async () => {
    await page.getByLabel("Type").selectOption("reservation.confirmed");
    await page.getByText("No reservation.confirmed events").waitFor();
    expect(page.url()).toBe(`${t.url}/console/events?type=reservation.confirmed`);
    await nav("Events");
    await page.waitForURL(`${t.url}/console/events`);
    await page.getByRole("row").filter({ hasText: "test.event" }).first().waitFor();
    expect(await page.getByLabel("Type").inputValue()).toBe("");
    // Back to the filtered address shows the filtered list again.
    await page.goBack();
    await page.getByText("No reservation.confirmed events").waitFor();
    expect(await page.getByLabel("Type").inputValue()).toBe("reservation.confirmed");
    // The skip link moves focus, not the page: the filter chosen stays.
    await page.getByLabel("Type").selectOption("test.event");
    await page.getByRole("row").filter({ hasText: "test.event" }).first().waitFor();
    await page.getByRole("link", { name: "Skip to content" }).focus();
    await page.keyboard.press("Enter");
    await page.goBack();
    expect(await page.getByLabel("Type").inputValue()).toBe("test.event");
    await nav("Events");
  });

  it("shows a type from the address that no event has as chosen, and All types brings every event back", async () => {
    await page.goto(`${t.url}/console/events?type=no.such.type`);
    await page.getByRole("alert").getByText("The input of platform:list_events is invalid").waitFor();
    expect(await page.getByLabel("Type").inputValue()).toBe("no.such.type");
    await page.getByLabel("Type").selectOption("");
    await page.getByRole("row").filter({ hasText: "test.event" }).first().waitFor();
    expect(page.url()).toBe(`${t.url}/console/events`);
  });

  it("shows connections with a clear empty state", async () => {
    await nav("Connections");
    await page.getByText("No connections yet").waitFor();
  });

  it("says a console address it does not have is not a page, and leads back to the keys", async () => {
    await page.goto(`${t.url}/console/no-such-page`);
    await page.getByText("There is no such page in the console").waitFor();
    expect(await page.title()).toContain("Page not found");
    await page.getByRole("main").getByRole("link", { name: "API keys" }).click();
    await page.waitForURL(`${t.url}/console/keys`);
    await page.getByRole("heading", { name: "API keys" }).first().waitFor();
    // A trailing slash names the same page, as it does for /console/.
    await page.goto(`${t.url}/console/events/`);
    await page.getByRole("heading", { level: 1, name: "Events" }).waitFor();
    expect(await page.title()).toBe("Events · Provider Gateway");
  });

  it("shows a failed load's error without a dismiss button that could not dismiss it", async () => {
    const failing = "**/console/api/operations/platform/list_connections";
    const error = { code: "internal_error", message: "The list failed", request_id: "req_x", retryable: false };
    await page.route(failing, (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ error }) }),
    );
    try {
      await page.goto(`${t.url}/console/connections`);
      await page.getByRole("alert").getByText("The list failed").waitFor();
      expect(await page.getByRole("button", { name: "Dismiss error" }).count()).toBe(0);
    } finally {
      await page.unroute(failing);
    }
  });

  it("starts a connect session, shows its link, and lists the connection it made", async () => {
    const connectForm = page.getByRole("form", { name: "Connect a provider account" });
    await connectForm.getByLabel("Provider").selectOption("shopping");
    await connectForm.getByLabel("External ref").fill("user_8842");
    await connectForm.getByRole("button", { name: "Start connect session" }).click();
    const link = await page.locator("#connect-link").getAttribute("href");
    expect(link).toMatch(/\/connect\/cst_[0-9A-Za-z]{32}$/);
    const flow = await runConnectFlow({ connectUrl: link ?? "", username: "demo", password: "demo" });
    expect(flow.ok).toBe(true);
    const search = page.getByRole("search");
    await search.getByRole("button", { name: "Search" }).click();
    const row = page.getByRole("row").filter({ hasText: "user_8842" });
    await row.waitFor();
    expect(await row.locator("td[data-label=Status]").textContent()).toBe("active");
    expect(await page.content()).not.toMatch(/conn_[0-9A-Za-z]{22}/);
    await search.getByLabel("External ref starts with").fill("nobody");
    await search.getByRole("button", { name: "Search" }).click();
    await page.getByText("No connection matches").waitFor();
    await page.getByText(/external refs that start with what you typed/).waitFor();
    await search.getByLabel("External ref starts with").fill("user_88");
    await search.getByRole("button", { name: "Search" }).click();
    await row.waitFor();
    await screenshot(page, "07-connections");
    expect(await accessibilityProblems(page)).toEqual([]);
    // A start that fails takes the last link off the screen: it must not be sent for another end user.
    await connectForm.getByLabel("External ref").fill("user_9001");
    await connectForm.getByRole("button", { name: "Start connect session" }).click();
    await page.locator("#connect-link").waitFor();
    await connectForm.getByLabel("External ref").fill("   ");
    await connectForm.getByRole("button", { name: "Start connect session" }).click();
    await connectForm.getByRole("alert").waitFor();
    expect(await page.locator("#connect-link").count()).toBe(0);
  });

  it("runs operations from try-it-out with a delegation token", async () => {
    await nav("API reference");
    await page.getByText(/Token gwd_/).waitFor();
    await page.locator("#operations-tag-catalog").waitFor();
    expect(await page.locator("#operations-tag-platform").count()).toBe(0);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "08-try-it-out", false);
    expect(await accessibilityProblems(page)).toEqual([]);

    // Limited to one provider, the reference shows just its operations; try-it-out is on from the start.
    await page.getByLabel("Token scopes").selectOption("echo");
    await page.getByText(/scopes echo Copy/).waitFor();
    // The reference is rendered again for the chosen provider: act on the new one, not on the one it replaces.
    await page.locator("#operations-tag-catalog").waitFor({ state: "detached" });
    const say = page.locator("#operations-echo-echo_say");
    await page.locator("#operations-tag-echo").click();
    await say.locator(".opblock-summary").click();
    await say.locator("textarea.body-param__text").fill(JSON.stringify({ text: "from try-it-out" }));
    await say.getByRole("button", { name: "Execute" }).click();
    const status = say.locator(".live-responses-table tr.response .response-col_status").first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe("200");
    const body = await say.locator(".live-responses-table .microlight").first().textContent();
    expect(JSON.parse(body ?? "{}").data).toEqual({ text: "from try-it-out", account_id: "default" });
    await say.locator(".live-responses-table").scrollIntoViewIfNeeded();
    await screenshot(page, "08-try-it-out-response", false);

    // A credentials operation, against the connection chosen here: its id never reaches the page.
    await page.getByLabel("Connection for credentials operations").selectOption({ label: "shopping · user_8842" });
    await page.getByLabel("Token scopes").selectOption("shopping");
    await page.getByText(/scopes shopping Copy/).waitFor();
    await page.locator("#operations-tag-echo").waitFor({ state: "detached" });
    const cart = page.locator("#operations-shopping-shopping_get_cart");
    await page.locator("#operations-tag-shopping").click();
    await cart.locator(".opblock-summary").click();
    // Swagger UI resolves an operation once it is opened; an Execute before that finds no operation and sends nothing.
    // The request body editor appears with the resolved operation.
    await cart.locator("textarea.body-param__text").waitFor();
    await cart.getByRole("button", { name: "Execute" }).click();
    const cartStatus = cart.locator(".live-responses-table tr.response .response-col_status").first();
    await cartStatus.waitFor();
    expect((await cartStatus.textContent())?.trim()).toBe("200");
    expect(await page.content()).not.toMatch(/conn_[0-9A-Za-z]{22}/);
  }, 120_000);

  it("finds any connection for try-it-out, past the newest 100", async () => {
    const { connections } = t.gateway.core;
    const tokens = { accessToken: "unused", refreshToken: undefined, expiresAt: null, scopes: ["cart"] };
    for (let i = 0; i <= 100; i++) {
      const externalRef = `bulk_${String(i).padStart(3, "0")}`;
      await t.gateway.core.store.db
        .transaction()
        .execute((trx) =>
          connections!.create(trx, { accountId: "default", providerId: "shopping", externalRef, tokens }),
        );
    }
    await nav("Connections");
    await nav("API reference");
    const picker = page.getByLabel("Connection for credentials operations");
    const oldest = picker.locator("option", { hasText: "user_8842" });
    await page.getByText(/^100 listed, more to load/).waitFor();
    expect(await oldest.count()).toBe(0);
    await page.getByRole("button", { name: "Load more" }).click();
    await page.getByText(/^102 listed\./).waitFor();
    expect(await oldest.count()).toBe(1);
    const find = page.getByRole("search", { name: "Find a connection" });
    await find.getByLabel("External ref starts with").fill("bulk_00");
    await find.getByRole("button", { name: "Find" }).click();
    await page.getByText(/^10 starting with “bulk_00”/).waitFor();
    await picker.selectOption({ label: "shopping · bulk_000" });
    await find.getByLabel("External ref starts with").fill("user_");
    await find.getByRole("button", { name: "Find" }).click();
    await page.getByText(/^1 starting with “user_”/).waitFor();
    // The chosen connection stays listed, and chosen, after another search.
    expect(await picker.locator("option:checked").textContent()).toBe("shopping · bulk_000");
    expect(await page.content()).not.toMatch(/conn_[0-9A-Za-z]{22}/);
  });

  it("charts the usage", async () => {
    await nav("Usage");
    await page.getByRole("heading", { name: "Latency per operation" }).waitFor();
    const row = page.getByRole("row").filter({ hasText: "echo:say" });
    expect(await row.locator("td[data-label=Requests]").textContent()).toBe("2");
    await screenshot(page, "09-usage");
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it("reads well on a phone, in dark mode too", async () => {
    // A phone in dark mode: the layout folds into one column and the dark palette keeps its contrast.
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      colorScheme: "dark",
    });
    await phone.addCookies(await context.cookies());
    const small = await phone.newPage();
    await small.goto(`${t.url}/console/keys`);
    await small.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    expect(await small.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(small, "10-phone-keys");
    expect(await accessibilityProblems(small)).toEqual([]);
    await phone.close();
  });

  it("keeps a 255-character external ref inside the page, on a phone and on a wide screen", async () => {
    const longRef = `user_${"z".repeat(250)}`;
    const started = await t.call("platform", "create_connect_session", {
      provider_id: "shopping",
      external_ref: longRef,
    });
    const connectUrl = ((await started.json()) as { data: { connect_url: string } }).data.connect_url;
    expect((await runConnectFlow({ connectUrl, username: "demo", password: "demo" })).ok).toBe(true);
    for (const viewport of [
      { width: 1920, height: 1080 },
      { width: 375, height: 800 },
    ]) {
      const sized = await browser.newContext({ viewport });
      await sized.addCookies(await context.cookies());
      const tab = await sized.newPage();
      await tab.goto(`${t.url}/console/connections`);
      const cell = tab.getByRole("row").filter({ hasText: "user_zzz" }).locator("td").first();
      await cell.waitFor();
      expect(await tab.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      // Nothing of it is cut off: the cell shows all of its text, wrapped.
      expect(await cell.evaluate((td) => td.scrollWidth <= td.clientWidth)).toBe(true);
      await screenshot(tab, `10-long-ref-${viewport.width}`);
      await sized.close();
    }
  });

  it("says it is reading the providers while the catalogue has not come, not that none takes connections", async () => {
    const tab = await context.newPage();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await tab.route("**/console/api/catalogue", async (route) => {
      await held;
      await route.continue();
    });
    await tab.goto(`${t.url}/console/connections`);
    const provider = tab.getByRole("form", { name: "Connect a provider account" }).getByLabel("Provider");
    await provider.getByRole("option", { name: "Reading the providers…" }).waitFor({ state: "attached" });
    release();
    await provider.getByRole("option", { name: "Sakura Market" }).waitFor({ state: "attached" });
    expect(await provider.getByRole("option", { name: "No provider takes connections" }).count()).toBe(0);
    await tab.close();
  });

  it("says so when it cannot tell who is signed in, rather than showing the sign-in page", async () => {
    const failing = {
      status: 500,
      contentType: "application/json",
      body: JSON.stringify({
        error: {
          code: "internal_error",
          message: "The request failed inside the gateway",
          request_id: "req_test",
          retryable: false,
        },
      }),
    };
    const tab = await context.newPage();
    await tab.route("**/console/api/session", (route) => route.fulfill(failing));
    await tab.goto(`${t.url}/console/keys`);
    await tab.getByRole("heading", { name: "The console could not reach the gateway" }).waitFor();
    await tab.getByRole("alert").getByText("The request failed inside the gateway").waitFor();
    expect(await tab.getByRole("heading", { name: "Sign in to the console" }).count()).toBe(0);
    await tab.unroute("**/console/api/session");
    await tab.getByRole("button", { name: "Try again" }).click();
    await tab.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    // A catalogue that cannot be read is said, not taken for an empty one, and can be read again.
    await tab.route("**/console/api/catalogue", (route) => route.fulfill(failing));
    await tab.reload();
    const notice = tab.getByText("The list of providers, scopes and event types could not be read");
    await notice.waitFor();
    await tab.unroute("**/console/api/catalogue");
    await tab.getByRole("button", { name: "Read it again" }).click();
    await notice.waitFor({ state: "detached" });
    // A 200 that is not the gateway's (a portal's or a proxy's page) is no answer either, for both.
    const portal = { status: 200, contentType: "text/html", body: "<html>Welcome to the hotel Wi-Fi</html>" };
    await tab.route("**/console/api/session", (route) => route.fulfill(portal));
    await tab.reload();
    await tab.getByRole("heading", { name: "The console could not reach the gateway" }).waitFor();
    await tab
      .getByRole("alert")
      .getByText(/is not the gateway's/)
      .waitFor();
    await tab.unroute("**/console/api/session");
    await tab.route("**/console/api/catalogue", (route) => route.fulfill(portal));
    await tab.getByRole("button", { name: "Try again" }).click();
    await notice.waitFor();
    await tab.close();
  });

  it("runs the public demo without signing in", async () => {
    const visitor = await browser.newContext();
    const demo = await visitor.newPage();
    await demo.goto(`${t.url}/demo`);
    await demo.getByLabel("Operation").selectOption("echo:say");
    await demo.getByLabel("Input (JSON)").fill(JSON.stringify({ text: "demo" }));
    await demo.getByRole("button", { name: "Run" }).click();
    await demo.getByRole("heading", { name: "Answer · 200 OK" }).waitFor();
    const answer = await demo.getByLabel("Answer", { exact: true }).textContent();
    expect(answer).toContain('"account_id": "demo"');
    // The input run is the one typed after choosing the operation, not its example put back after the edit.
    expect(answer).toContain('"text": "demo"');
    await screenshot(demo, "11-demo");
    expect(await accessibilityProblems(demo)).toEqual([]);
    await visitor.close();
  });

  it("stays signed in, and says so, when the gateway cannot be reached to sign out", async () => {
    const offline = await context.newPage();
    await offline.goto(`${t.url}/console`);
    await offline.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    await offline.route("**/console/api/session", (route) => route.abort("connectionrefused"));
    await offline.getByRole("button", { name: "Sign out" }).click();
    await offline.getByText("The gateway could not be reached").waitFor();
    expect(await offline.getByRole("heading", { name: "Sign in to the console" }).count()).toBe(0);
    // The session is alive: signing out must be tried again once the gateway answers.
    await offline.unroute("**/console/api/session");
    await offline.reload();
    await offline.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    await offline.close();
  });

  it("follows another tab's sign-in as someone else, never showing their data under this tab's name", async () => {
    await createUser(t, "grace@example.com", "grace-account");
    await nav("API keys");
    await page.getByText("checkout service").first().waitFor();
    await signInInAnotherTab("grace@example.com");
    // This tab still shows ada: the next page it reads is answered for grace, so the tab becomes grace's.
    await expect(page.locator(".email").textContent()).resolves.toBe("ada@example.com");
    await nav("Connections");
    await page.locator(".email", { hasText: "grace@example.com" }).waitFor();
    await nav("API keys");
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    await page.waitForLoadState("networkidle");
    expect(await page.getByText("checkout service").count()).toBe(0);
  });

  it("takes the new CSRF token when the same user signed in again in another tab, rather than failing every action", async () => {
    await signInInAnotherTab("grace@example.com");
    // This tab's token is the old session's: its first action is refused, and the tab reads the session again.
    await nav("API keys");
    await page.getByLabel("Name").fill("after re-sign-in");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.waitForLoadState("networkidle");
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    await page.getByLabel("Name").fill("after re-sign-in");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.locator("#shown-once-value").waitFor();
    await page.getByRole("button", { name: /stored it/ }).click();
  });

  it("signs out, from a tab whose CSRF token another tab's new sign-in replaced too", async () => {
    // A second tab signs out and in again: the cookie both tabs share is a new session's, this tab's token is not.
    await signInInAnotherTab("ada@example.com");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to the console" }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Sign in to the console");
    const status = await page.evaluate(async () => (await fetch("/console/api/session")).status);
    expect(status).toBe(401);
    await page.goto(`${t.url}/console/usage`);
    await page.getByRole("heading", { name: "Sign in to the console" }).waitFor();
    await screenshot(page, "12-signed-out");
  });

  it("asks for nothing the gateway does not serve", async () => {
    const missing: string[] = [];
    const visitor = await context.newPage();
    visitor.on("response", (response) => {
      if (response.status() === 404) missing.push(response.url());
    });
    await visitor.goto(`${t.url}/console`);
    await visitor.getByRole("heading", { name: "Sign in to the console" }).waitFor();
    await visitor.waitForLoadState("networkidle");
    expect(missing).toEqual([]);
    await visitor.close();
  });
});
