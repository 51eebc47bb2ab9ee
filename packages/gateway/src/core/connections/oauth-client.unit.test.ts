// The gateway as the OAuth client of an authorization server that answers oddly, over real HTTP: a server of the
// test's own whose discovery, token and revocation answers each test sets. What the gateway keeps of a token answer
// (whole milliseconds, a year at most, the requested scopes when none are named), what it refuses (tokens it will not
// store, revoked at once), metadata without the endpoints it needs (not kept), and a 429's Retry-After.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GatewayError } from "../errors.ts";
import {
  type AuthorizationDenied,
  maxAuthorizationAnswerBytes,
  maxTokenLength,
  ProviderOAuthClient,
  RefreshUnusable,
} from "./oauth-client.ts";

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

let server: Server;
let issuer = "";
let metadata: () => Answer;
let token: () => Answer;
const revoked: string[] = [];

const readForm = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString());
};

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const path = request.url ?? "/";
    let answer: Answer = { status: 404, body: { error: "not_found" } };
    if (path === "/.well-known/oauth-authorization-server") answer = metadata();
    else if (path === "/token") answer = token();
    else if (path === "/revoke") {
      revoked.push((await readForm(request)).get("token") ?? "");
      answer = { status: 200, body: {} };
    }
    response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    response.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const fullMetadata = () => ({
  status: 200,
  body: {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    revocation_endpoint: `${issuer}/revoke`,
  },
});
const bearer = (fields: Record<string, unknown>) => () => ({
  status: 200,
  body: { access_token: "at_1", token_type: "Bearer", ...fields },
});

beforeEach(() => {
  metadata = fullMetadata;
  token = bearer({ expires_in: 900, refresh_token: "rt_1" });
  revoked.length = 0;
});

const client = () =>
  new ProviderOAuthClient({
    providerId: "shop",
    issuer,
    clientId: "gateway",
    clientSecret: "client-secret",
    scopes: ["cart", "watch"],
    redirectUri: "http://gateway.test/connect/callback",
    timeoutMs: 2_000,
  });
const now = 1_800_000_000_000;
const exchange = (oauth = client()) =>
  oauth.exchangeCode(new URL("http://gateway.test/connect/callback?code=c1&state=s1"), "s1", "v".repeat(43), () => now);

describe("a token answer", () => {
  it("keeps a lifetime in whole milliseconds, at most a year, and none when it names none", async () => {
    const cases: [unknown, number | null][] = [
      [900, now + 900_000],
      [0.0005, now],
      [1.0009999, now + 1000],
      [1e300, now + 365 * 86_400_000],
      [undefined, null],
    ];
    for (const [expiresIn, expiresAt] of cases) {
      token = bearer({ expires_in: expiresIn, refresh_token: "rt_1" });
      expect((await exchange()).expiresAt, String(expiresIn)).toBe(expiresAt);
    }
  });

  it("takes the requested scopes when a code exchange names none, and the named ones when it does", async () => {
    expect((await exchange()).scopes).toEqual(["cart", "watch"]);
    token = bearer({ expires_in: 900, scope: "cart" });
    expect((await exchange()).scopes).toEqual(["cart"]);
    // A refresh that names none keeps the connection's (the caller sees no scopes to change).
    token = bearer({ expires_in: 900 });
    expect((await client().refresh("rt_0", () => now)).scopes).toEqual([]);
  });

  it("with a token longer than the gateway keeps is refused, and the grant it stands for is revoked", async () => {
    token = bearer({ expires_in: 900, refresh_token: "r".repeat(maxTokenLength + 1) });
    const refused = await exchange().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).message).toBe(
      "The shop provider's authorization server did not complete the code exchange",
    );
    expect(((refused as GatewayError).cause as Error).message).toBe(
      `The refresh token is ${maxTokenLength + 1} characters long, more than ${maxTokenLength}`,
    );
    expect(revoked).toEqual(["r".repeat(maxTokenLength + 1)]);
  });
});

describe("a code exchange the server fails", () => {
  it("is the server unavailable when it says it is busy or failing, and a refusal for any other OAuth error", async () => {
    const failure = async (status: number, error: string) => {
      token = () => ({ status, body: { error } });
      const thrown = await exchange().catch((caught: unknown) => caught);
      return thrown instanceof GatewayError ? thrown.code : (thrown as Error).constructor.name;
    };
    expect(await failure(400, "temporarily_unavailable")).toBe("provider_unavailable");
    expect(await failure(400, "server_error")).toBe("provider_unavailable");
    expect(await failure(503, "invalid_request")).toBe("provider_unavailable");
    expect(await failure(400, "invalid_grant")).toBe("AuthorizationDenied");
    expect(await failure(401, "invalid_client")).toBe("AuthorizationDenied");
  });
});

describe("an authorization the server answers with an error", () => {
  it("is the server unavailable when it says it is busy or failing, and a refusal for any other error", async () => {
    const failure = async (error: string) => {
      const callback = new URL(`http://gateway.test/connect/callback?error=${error}&state=s1`);
      const thrown = await client()
        .exchangeCode(callback, "s1", "v".repeat(43), () => now)
        .catch((caught: unknown) => caught);
      return thrown instanceof GatewayError ? thrown.code : (thrown as AuthorizationDenied).error;
    };
    expect(await failure("temporarily_unavailable")).toBe("provider_unavailable");
    expect(await failure("server_error")).toBe("provider_unavailable");
    expect(await failure("access_denied")).toBe("access_denied");
    expect(await failure("invalid_scope")).toBe("invalid_scope");
  });
});

describe("a code exchange answered with tokens the gateway refuses", () => {
  it("revokes the grant they stand for: another token type, a negative lifetime", async () => {
    for (const fields of [{ token_type: "mac" }, { expires_in: -5 }]) {
      revoked.length = 0;
      token = () => ({
        status: 200,
        body: { access_token: "at_2", refresh_token: "rt_2", token_type: "Bearer", ...fields },
      });
      expect(await exchange().catch((error: unknown) => (error as GatewayError).code)).toBe("provider_unavailable");
      expect(revoked, JSON.stringify(fields)).toEqual(["rt_2"]);
    }
    // An OAuth error carries no token: nothing to revoke.
    revoked.length = 0;
    token = () => ({ status: 400, body: { error: "invalid_grant" } });
    await exchange().catch(() => undefined);
    expect(revoked).toEqual([]);
  });
});

describe("a refresh answered with tokens the gateway refuses", () => {
  it("revokes them and says the connection cannot refresh again; an answer without tokens is the server unavailable", async () => {
    token = () => ({ status: 200, body: { access_token: "at_3", refresh_token: "rt_3", token_type: "mac" } });
    const unusable = await client()
      .refresh("rt_0", () => now)
      .catch((error: unknown) => error);
    expect(unusable).toBeInstanceOf(RefreshUnusable);
    expect((unusable as Error).message).toBe(
      "The refresh was answered with tokens the gateway cannot use: unsupported `token_type` value",
    );
    expect(revoked).toEqual(["rt_3"]);
    revoked.length = 0;
    token = () => ({ status: 200, body: "<html>maintenance</html>" });
    const busy = (await client()
      .refresh("rt_0", () => now)
      .catch((error: unknown) => error)) as GatewayError;
    expect([busy.code, revoked]).toEqual(["provider_unavailable", []]);
  });
});

describe("an authorization server answer longer than the gateway reads", () => {
  it("is refused unread, as the server unavailable", async () => {
    token = bearer({ expires_in: 900, padding: "x".repeat(maxAuthorizationAnswerBytes) });
    const refused = (await client()
      .refresh("rt_0", () => now)
      .catch((error: unknown) => error)) as GatewayError;
    expect(refused.code).toBe("provider_unavailable");
    // Chunked, so refused as it arrives: past the limit, the rest is not read.
    expect((refused.cause as Error).message).toBe(`The answer is longer than ${maxAuthorizationAnswerBytes} bytes`);
  });
});

describe("a token endpoint that asks to be left alone", () => {
  it("is a 502 that ran nothing, with the server's Retry-After", async () => {
    token = () => ({ status: 429, body: { error: "slow_down" }, headers: { "retry-after": "7" } });
    const failed = (await client()
      .refresh("rt_0", () => now)
      .catch((error: unknown) => error)) as GatewayError;
    expect([failed.code, failed.retryAfterSeconds, failed.notExecuted, failed.provider]).toEqual([
      "provider_unavailable",
      7,
      true,
      "shop",
    ]);
  });
});

describe("metadata without the endpoints the gateway needs", () => {
  it("is not kept: the next use discovers again, and works once the server names them", async () => {
    const oauth = client();
    metadata = () => ({ status: 200, body: { issuer, authorization_endpoint: `${issuer}/authorize` } });
    const failed = (await oauth.server().catch((error: unknown) => error)) as GatewayError;
    expect(failed.message).toBe("The shop provider's authorization server could not be discovered");
    expect((failed.cause as Error).message).toBe("the metadata has no token_endpoint");
    metadata = fullMetadata;
    expect((await oauth.server()).token_endpoint).toBe(`${issuer}/token`);
  });
});
