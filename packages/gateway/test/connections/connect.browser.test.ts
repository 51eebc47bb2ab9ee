// The connect flow in a real browser: Debian's headless Chromium driven by playwright-core (never a downloaded
// browser) opens connect_url, continues to the shop, signs in as demo, allows access, and lands on the success page;
// the new connection then serves a cart call; two flows in two tabs of one browser both finish; another site's
// auto-submitting form lands on the start page. Skipped, with a message, only where /usr/bin/chromium is absent.
import fs from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSession, platform, type ShoppingSetup, shopping, startShopping } from "./setup.ts";

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const hasChromium = fs.existsSync(executablePath);
if (!hasChromium) console.warn(`Skipping the headless browser connect test: ${executablePath} is not installed`);

describe.skipIf(!hasChromium)("the connect flow in headless Chromium", () => {
  let s: ShoppingSetup;
  let browser: Browser;

  beforeAll(async () => {
    s = await startShopping();
    browser = await chromium.launch({
      executablePath,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it("connects a shopper's account through the hosted page and the shop's own forms", async () => {
    const session = await createSession(s.t, "browser_user");
    const page = await browser.newPage();
    const seen: string[] = [];
    page.on("framenavigated", (frame) => seen.push(frame.url()));

    await page.goto(session.connect_url);
    await expect(page.locator("h1").textContent()).resolves.toBe("Connect your Sakura Market account");
    await page.getByRole("button", { name: "Continue to Sakura Market" }).click();
    await page.getByLabel("Username").fill("demo");
    await page.getByLabel("Password").fill("demo");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.locator("h1").textContent()).resolves.toBe("Allow Provider Gateway to use your account?");
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL(/\/connect\/callback/);
    await expect(page.locator("h1").textContent()).resolves.toBe("Your Sakura Market account is connected");
    const finalHtml = await page.content();
    await page.close();

    const { body } = await platform(s.t, "list_connections", { external_ref: "browser_user" });
    expect(body.data.connections).toHaveLength(1);
    const connection = body.data.connections[0];
    for (const url of seen) expect(url).not.toContain(connection.id);
    expect(finalHtml).not.toContain(connection.id);
    const cart = await shopping(s.t, "get_cart", connection.id);
    expect(cart.status).toBe(200);
    expect(((await cart.json()) as any).data.cart.item_count).toBe(0);
  });

  /** Signs in as demo on the shop's page and allows access; answers the heading of the page it lands on. */
  async function signInAndAllow(page: Page) {
    await page.getByLabel("Username").fill("demo");
    await page.getByLabel("Password").fill("demo");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL(/\/connect\/callback/);
    return page.locator("h1").textContent();
  }

  it("finishes two flows started in two tabs of one browser, the first started first", async () => {
    const context = await browser.newContext();
    const [first, second] = [await context.newPage(), await context.newPage()];
    for (const [page, ref] of [
      [first, "tab_first"],
      [second, "tab_second"],
    ] as const) {
      await page.goto((await createSession(s.t, ref)).connect_url);
      await page.getByRole("button", { name: "Continue to Sakura Market" }).click();
      await page.getByLabel("Username").waitFor();
    }
    await expect(signInAndAllow(first)).resolves.toBe("Your Sakura Market account is connected");
    await expect(signInAndAllow(second)).resolves.toBe("Your Sakura Market account is connected");
    await context.close();
    for (const ref of ["tab_first", "tab_second"]) {
      const { body } = await platform(s.t, "list_connections", { external_ref: ref });
      expect(body.data.connections).toHaveLength(1);
    }
  });

  it("shows the start page to another site's auto-submitting form, and starts nothing", async () => {
    const session = await createSession(s.t, "cross_site_form");
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.route("http://elsewhere.test/", (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<form id="f" method="post" action="${session.connect_url}"></form><script>f.submit()</script>`,
      }),
    );
    await page.goto("http://elsewhere.test/");
    await page.waitForURL(session.connect_url);
    await expect(page.locator("h1").textContent()).resolves.toBe("Connect your Sakura Market account");
    const row = await s.t.gateway.core.store.db
      .selectFrom("connect_sessions")
      .select("status")
      .where("external_ref", "=", "cross_site_form")
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("pending");
    // Continue on the page itself goes on to the shop.
    await page.getByRole("button", { name: "Continue to Sakura Market" }).click();
    await expect(signInAndAllow(page)).resolves.toBe("Your Sakura Market account is connected");
    await context.close();
  });
});
