// The connect flow in a real browser: Debian's headless Chromium driven by playwright-core (never a downloaded
// browser) opens connect_url, continues to the shop, signs in as demo, allows access, and lands on the success page;
// the new connection then serves a cart call. Skipped, with a message, only where /usr/bin/chromium is absent.
import fs from "node:fs";
import { type Browser, chromium } from "playwright-core";
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
});
