// The API reference in a real browser: Debian's headless Chromium (playwright-core) opens /docs at 127.0.0.1 while
// GATEWAY_PUBLIC_URL names localhost, authorizes with a key and runs an operation with try-it-out; the call goes to
// the origin the page was loaded from and answers 200. Skipped, with a message, only where /usr/bin/chromium is absent.
import fs from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../console/browser.ts";
import { startTestGateway, type TestGateway } from "../harness.ts";

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const hasChromium = fs.existsSync(executablePath);
if (!hasChromium) console.warn(`Skipping the headless browser docs test: ${executablePath} is not installed`);

describe.skipIf(!hasChromium)("/docs in headless Chromium", () => {
  let t: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestGateway();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("runs an operation with try-it-out from whatever origin the page was loaded at", async () => {
    const origin = new URL(t.url).origin.replace("localhost", "127.0.0.1");
    expect(t.config.publicUrl).toMatch(/^http:\/\/localhost:/);
    const page = await browser.newPage();
    const calls: string[] = [];
    page.on("request", (request) => calls.push(request.url()));
    const policyErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" && /Content Security Policy/.test(message.text()))
        policyErrors.push(message.text());
    });
    await page.goto(`${origin}/docs`);
    await page.locator("button.authorize").first().click();
    await page.locator(".modal-ux input").first().fill(t.key);
    await page.locator(".modal-ux button.authorize").click();
    await page.locator(".modal-ux button.btn-done").click();
    await page.locator("#operations-opendata-opendata_lookup_postal_code .opblock-summary").click();
    // The page opens every operation in try-it-out mode (tryItOutEnabled).
    await page
      .locator("#operations-opendata-opendata_lookup_postal_code textarea.body-param__text")
      .fill(JSON.stringify({ postal_code: "1500001" }));
    await page.getByRole("button", { name: "Execute" }).click();
    const status = page.locator(
      "#operations-opendata-opendata_lookup_postal_code .live-responses-table tbody .response-col_status",
    );
    await expect(status.first().textContent({ timeout: 15_000 })).resolves.toContain("200");
    expect(calls).toContain(`${origin}/v1/opendata/lookup_postal_code`);
    expect(policyErrors.filter((text) => text.includes("connect"))).toEqual([]);
    await page.close();
  });
});
