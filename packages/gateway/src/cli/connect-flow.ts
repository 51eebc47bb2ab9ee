// The connect flow without a person: open connect_url, continue to the provider, sign in with the given user,
// answer the consent form, and land on the gateway's result page. `gateway connections create` and the tests use
// it against the sandboxes' login and consent forms (any provider built on packages/sandbox/src/shared/oauth).
import { FormBrowser, formsOf, type Page, textOf } from "./form-browser.ts";

export interface ConnectFlowOptions {
  connectUrl: string;
  username: string;
  password: string;
  /** The consent answer (default allow). */
  decision?: "allow" | "deny";
  browser?: FormBrowser;
}

export interface ConnectFlowResult {
  ok: boolean;
  /** The last page: the gateway's success or failure page, or the provider page the flow stopped on. */
  page: Page;
  /** Its headline and text, for people. */
  message: string;
}

const result = (ok: boolean, page: Page): ConnectFlowResult => ({ ok, page, message: textOf(page.html) });

export async function runConnectFlow(options: ConnectFlowOptions): Promise<ConnectFlowResult> {
  const browser = options.browser ?? new FormBrowser();
  let page = await browser.get(options.connectUrl);
  const start = formsOf(page.html)[0];
  if (page.status !== 200 || !start) return result(false, page);
  page = await browser.submit(page, start);

  const login = formsOf(page.html).find((form) => "password" in form.fields);
  if (login) {
    page = await browser.submit(page, login, { username: options.username, password: options.password });
  }
  const consent = formsOf(page.html).find((form) => form.buttons.some((b) => b.value === "allow"));
  if (page.status !== 200 || !consent) return result(false, page);
  const button = consent.buttons.find((b) => b.value === (options.decision ?? "allow"));
  page = await browser.submit(page, consent, {}, button);
  return result(page.status === 200 && new URL(page.url).pathname === "/connect/callback", page);
}
