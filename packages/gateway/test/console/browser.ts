// Browser tests' tools: Debian's Chromium driven by playwright-core (never a downloaded browser), the console built
// when it is not yet, and screenshots written to test-artifacts/console/.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { defaultConsoleDir } from "../../src/http/console/static-routes.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
export const screenshotDir = path.join(root, "test-artifacts/console");

/** `npm test` builds the console first; a lone vitest run builds it here when there is no build yet. */
export function ensureConsoleBuilt(): void {
  if (fs.existsSync(path.join(defaultConsoleDir, "index.html"))) return;
  execFileSync("npm", ["run", "build", "-w", "@provider-gateway/console"], { cwd: root, stdio: "ignore" });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
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
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  fs.mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage });
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * WCAG 2 A and AA problems axe-core finds on the page, as "rule: element" lines (none expected). Swagger UI's own
 * markup (inside .swagger-host) is not ours to audit.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the console's CSP (rightly) refuses inline scripts.
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<any> } }).axe;
    const result = await axe.run(
      { exclude: [[".swagger-host"]] },
      { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } },
    );
    return result.violations.flatMap((v: any) => v.nodes.map((n: any) => `${v.id}: ${n.target.join(" ")}`));
  });
}
