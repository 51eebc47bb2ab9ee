// The sandbox authorization server over real HTTP, as any OAuth 2.0 client sees it: metadata, the authorization
// code with PKCE (single use, short-lived, bound to client and redirect URI), client authentication, refresh with
// rotation and reuse detection, revocation (RFC 7009), and bearer checks on the shop's member API.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShoppingSandbox } from "../../shopping/server.ts";

let now = Date.UTC(2026, 10, 21);
const sandbox = createShoppingSandbox({ now: () => now });
let base = "";
const redirectUri = "https://app.example.com/connect/callback";
const basic = (id = "provider-gateway", secret = "sandbox-client-secret") =>
  `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;

beforeAll(async () => {
  base = await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(() => sandbox.app.close());

const form = (values: Record<string, string>) => new URLSearchParams(values).toString();
const formHeaders = { "content-type": "application/x-www-form-urlencoded" };
const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** Opens the authorization page and signs in as demo: the sign-in and consent pages, and the signed-in cookie. */
async function toConsent(params: Record<string, string>) {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: "provider-gateway",
    redirect_uri: redirectUri,
    ...params,
  });
  const login = await (await fetch(`${base}/oauth/authorize?${query}`)).text();
  const signedIn = await fetch(`${base}/oauth/login`, {
    method: "POST",
    headers: formHeaders,
    body: form({ request_id: field(login, "request_id"), username: "demo", password: "demo" }),
    redirect: "manual",
  });
  const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
  const consent = await (await fetch(new URL(signedIn.headers.get("location")!, base), { headers: { cookie } })).text();
  return { login, consent, cookie };
}

/** Signs in as demo and answers consent; resolves the redirect back (code or error) as a URL. */
async function authorize(params: Record<string, string>, decision = "allow"): Promise<URL> {
  const { consent, cookie } = await toConsent(params);
  const answered = await fetch(`${base}/oauth/consent`, {
    method: "POST",
    headers: { ...formHeaders, cookie },
    body: form({ request_id: field(consent, "request_id"), consent_token: field(consent, "consent_token"), decision }),
    redirect: "manual",
  });
  expect(answered.status).toBe(303);
  return new URL(answered.headers.get("location")!);
}

async function token(values: Record<string, string>, authorization: string | null = basic()) {
  const response = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { ...formHeaders, ...(authorization && { authorization }) },
    body: form(values),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

async function codeGrant() {
  const { verifier, challenge } = pkce();
  const callback = await authorize({ code_challenge: challenge, code_challenge_method: "S256", state: "s1" });
  const code = callback.searchParams.get("code")!;
  return { code, verifier, callback };
}

const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
  token({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: verifier, ...extra });
const member = (accessToken: string, path = "/api/v2/me") =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${accessToken}` } });

describe("sandbox authorization server", () => {
  it("publishes its metadata (RFC 8414)", async () => {
    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as any;
    expect(metadata).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
    });
  });

  it("issues a code with state and iss, and exchanges it once for tokens", async () => {
    const { code, verifier, callback } = await codeGrant();
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    expect([callback.searchParams.get("state"), callback.searchParams.get("iss")]).toEqual(["s1", base]);
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(first.body).toEqual({
      access_token: expect.stringMatching(/^smk_at_/),
      token_type: "Bearer",
      expires_in: 900,
      refresh_token: expect.stringMatching(/^smk_rt_/),
      scope: "cart watchlist",
    });
    expect((await member(first.body.access_token)).status).toBe(200);
    // A replayed code is refused, and what the first exchange issued is revoked with it.
    const replay = await exchange(code, verifier);
    expect([replay.status, replay.body.error]).toEqual([400, "invalid_grant"]);
    expect((await member(first.body.access_token)).status).toBe(401);
  });

  it("refuses a code whose verifier, redirect URI or age is wrong", async () => {
    const wrongVerifier = await codeGrant();
    const pkceFailure = await exchange(wrongVerifier.code, pkce().verifier);
    expect(pkceFailure.body).toEqual({
      error: "invalid_grant",
      error_description: "PKCE verification failed: code_verifier does not match the challenge",
    });
    expect((await exchange(wrongVerifier.code, wrongVerifier.verifier)).status).toBe(400); // consumed by the attempt
    const wrongRedirect = await codeGrant();
    expect(
      (await exchange(wrongRedirect.code, wrongRedirect.verifier, { redirect_uri: `${redirectUri}x` })).body.error,
    ).toBe("invalid_grant");
    const late = await codeGrant();
    now += 61_000;
    expect((await exchange(late.code, late.verifier)).body.error_description).toBe(
      "The authorization code has expired",
    );
  });

  it("authenticates the client (basic or post) and refuses a wrong secret with 401", async () => {
    const { code, verifier } = await codeGrant();
    const issued = await exchange(code, verifier);
    expect(issued.status).toBe(200);
    const bad = await token({ grant_type: "refresh_token", refresh_token: "x" }, basic("provider-gateway", "nope"));
    expect([bad.status, bad.body.error, bad.headers.get("www-authenticate")]).toEqual([
      401,
      "invalid_client",
      'Basic realm="sandbox"',
    ]);
    const posted = await token(
      {
        grant_type: "refresh_token",
        refresh_token: issued.body.refresh_token,
        client_id: "provider-gateway",
        client_secret: "sandbox-client-secret",
      },
      null,
    );
    expect(posted.status).toBe(200);
  });

  it("rotates refresh tokens and revokes the grant when a retired one is used again", async () => {
    const { code, verifier } = await codeGrant();
    const tokens = (await exchange(code, verifier)).body;
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token);
    const reused = await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    expect([reused.status, reused.body.error]).toEqual([400, "invalid_grant"]);
    expect((await member(refreshed.body.access_token)).status).toBe(401);
    expect((await token({ grant_type: "refresh_token", refresh_token: refreshed.body.refresh_token })).status).toBe(
      400,
    );
  });

  it("expires access tokens after 15 minutes by its clock, with a bearer challenge", async () => {
    const { code, verifier } = await codeGrant();
    const tokens = (await exchange(code, verifier)).body;
    now += 900_000;
    const expired = await member(tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(await expired.json()).toEqual({
      error: { code: "UNAUTHORIZED", message: "The access token is invalid or expired" },
    });
  });

  it("revokes tokens (RFC 7009): a refresh token ends the grant; unknown tokens answer 200", async () => {
    const { code, verifier } = await codeGrant();
    const tokens = (await exchange(code, verifier)).body;
    const revoke = (value: string) =>
      fetch(`${base}/oauth/revoke`, {
        method: "POST",
        headers: { ...formHeaders, authorization: basic() },
        body: form({ token: value }),
      });
    expect((await revoke("not-a-token")).status).toBe(200);
    expect((await revoke(tokens.refresh_token)).status).toBe(200);
    expect((await member(tokens.access_token)).status).toBe(401);
    expect((await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token })).body.error).toBe(
      "invalid_grant",
    );
  });

  it("shows errors about the client as a page and sends the others back with state and iss", async () => {
    const unknownClient = await fetch(
      `${base}/oauth/authorize?client_id=evil&redirect_uri=${encodeURIComponent(redirectUri)}`,
    );
    expect(unknownClient.status).toBe(400);
    expect(await unknownClient.text()).toContain("not registered");
    const noPkce = await fetch(
      `${base}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: "provider-gateway", redirect_uri: redirectUri, state: "s2" })}`,
      { redirect: "manual" },
    );
    const back = new URL(noPkce.headers.get("location")!);
    expect([back.searchParams.get("error"), back.searchParams.get("state"), back.searchParams.get("iss")]).toEqual([
      "invalid_request",
      "s2",
      base,
    ]);
    const denied = await authorize(
      { ...{ code_challenge: pkce().challenge, code_challenge_method: "S256" }, state: "s3" },
      "deny",
    );
    expect([
      denied.searchParams.get("error"),
      denied.searchParams.get("state"),
      denied.searchParams.has("code"),
    ]).toEqual(["access_denied", "s3", false]);
  });

  it("keeps a member's data behind the scopes granted", async () => {
    const { verifier, challenge } = pkce();
    const callback = await authorize({ code_challenge: challenge, code_challenge_method: "S256", scope: "cart" });
    const tokens = (await exchange(callback.searchParams.get("code")!, verifier)).body;
    expect((await member(tokens.access_token, "/api/v2/cart")).status).toBe(200);
    expect((await member(tokens.access_token, "/api/v2/watchlist")).status).toBe(403);
  });

  it("answers a wrong password with the sign-in page again", async () => {
    const { challenge } = pkce();
    const query = new URLSearchParams({
      response_type: "code",
      client_id: "provider-gateway",
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    const login = await (await fetch(`${base}/oauth/authorize?${query}`)).text();
    const wrong = await fetch(`${base}/oauth/login`, {
      method: "POST",
      headers: formHeaders,
      body: form({ request_id: field(login, "request_id"), username: "demo", password: "wrong" }),
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("Wrong username or password.");
  });

  it("marks its pages English and the shop's Japanese words, names and scopes Japanese", async () => {
    const { login, consent } = await toConsent({
      scope: "cart",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    });
    expect(login).toContain('<html lang="en">');
    expect(login).toContain('<h1>Sign in to <span lang="ja">さくらマーケット</span></h1>');
    expect(consent).toContain('Signed in as <strong><span lang="ja">デモ 太郎</span></strong>.');
    expect(consent).toContain(
      '<strong>cart</strong>: <span lang="ja">カートの閲覧と変更</span> (view and change your cart)',
    );
  });
});
