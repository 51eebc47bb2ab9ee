// Two sandboxes on one host (as `gateway sandbox` and the in-process sandboxes run them: 127.0.0.1, one port each).
// Cookies are not isolated by port, so a browser that signs in at one sandbox must not lose its sign-in at another:
// an end user connecting two providers in two tabs at once (docs/connections.md) must be able to finish both.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createDiningSandbox } from "../../dining/server.ts";
import { createShoppingSandbox } from "../../shopping/server.ts";

const shopping = createShoppingSandbox({ now: () => Date.now() });
const dining = createDiningSandbox({ now: () => Date.now() });
let shopBase = "";
let diningBase = "";
beforeAll(async () => {
  shopBase = await shopping.app.listen({ host: "127.0.0.1", port: 0 });
  diningBase = await dining.app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await shopping.app.close();
  await dining.app.close();
});

const formHeaders = { "content-type": "application/x-www-form-urlencoded" };
const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";
// One cookie jar for host 127.0.0.1, whatever the port: what a browser keeps.
const jar = new Map<string, string>();
const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
async function browse(url: string, init: RequestInit = {}) {
  const response = await fetch(url, {
    ...init,
    redirect: "manual",
    headers: { ...init.headers, cookie: cookieHeader() },
  });
  for (const set of response.headers.getSetCookie()) {
    const [pair] = set.split(";");
    const at = pair!.indexOf("=");
    jar.set(pair!.slice(0, at), pair!.slice(at + 1));
  }
  return response;
}
async function toConsent(base: string, scope: string) {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: "provider-gateway",
    redirect_uri: "https://app.example.com/connect/callback",
    scope,
    state: "s",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGcSjV4Z9Y",
    code_challenge_method: "S256",
  });
  const login = await (await browse(`${base}/oauth/authorize?${query}`)).text();
  const signedIn = await browse(`${base}/oauth/login`, {
    method: "POST",
    headers: formHeaders,
    body: new URLSearchParams({ request_id: field(login, "request_id"), username: "demo", password: "demo" }),
  });
  return (await browse(new URL(signedIn.headers.get("location")!, base).toString())).text();
}

it("a sign-in at one sandbox on the host keeps the consent of another sandbox answerable", async () => {
  const shopConsent = await toConsent(shopBase, "cart");
  const second = await toConsent(diningBase, "booking");
  expect(second).toContain("consent_token"); // the second tab
  const answered = await browse(`${shopBase}/oauth/consent`, {
    method: "POST",
    headers: formHeaders,
    body: new URLSearchParams({
      request_id: field(shopConsent, "request_id"),
      consent_token: field(shopConsent, "consent_token"),
      decision: "allow",
    }),
  });
  expect(answered.status).toBe(303);
  expect(answered.headers.get("location")).toMatch(/^https:\/\/app\.example\.com\/connect\/callback\?code=/);
});
