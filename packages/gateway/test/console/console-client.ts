// Console test helpers: a gateway with the echo provider, console users created in its store, and a client that
// signs in and calls the console API as a browser would (session cookie, CSRF token, same-origin headers).
import { Users } from "../../src/core/users/users.ts";
import { providers } from "../../src/providers/registry.ts";
import { startTestGateway, type TestGateway, type TestGatewayOptions } from "../harness.ts";
import { echoProvider } from "./echo-provider.ts";

export const password = "correct horse battery";

export function startConsoleGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  return startTestGateway({ providers: [...providers, echoProvider], ...options });
}

export async function createUser(t: TestGateway, email: string, accountId = "default"): Promise<void> {
  await t.gateway.core.accounts.ensure(accountId);
  await new Users(t.gateway.core.store.db, t.gateway.core.clock).create({ email, accountId, password });
}

/**
 * A console user's row as an earlier version may have stored it (an email not composed, say), to insert straight into
 * the store; no password matches its hash.
 */
export const storedUserRow = (id: string, email: string) => ({
  id,
  account_id: "default",
  email,
  password_hash: "scrypt$1$8$1$AA$AA",
  created_at: 1,
  last_sign_in_at: null,
});

export class ConsoleClient {
  cookie: string | undefined;
  csrf: string | undefined;

  constructor(readonly url: string) {}

  async signIn(email: string, secret = password): Promise<Response> {
    const response = await this.request("POST", "/console/api/session", { email, password: secret });
    const setCookie = response.headers.get("set-cookie");
    if (response.ok && setCookie) {
      this.cookie = setCookie.split(";")[0];
      this.csrf = ((await response.clone().json()) as { data: { csrf_token: string } }).data.csrf_token;
    }
    return response;
  }

  request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.url}${path}`, {
      method,
      headers: {
        origin: this.url,
        ...(body !== undefined && { "content-type": "application/json" }),
        ...(this.cookie && { cookie: this.cookie }),
        ...(this.csrf && method !== "GET" && { "x-csrf-token": this.csrf }),
        ...headers,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  }

  /** Runs a platform operation through the console; answers the parsed body and the status. */
  async operation(operation: string, input: unknown = {}): Promise<{ status: number; body: any }> {
    const response = await this.request("POST", `/console/api/operations/platform/${operation}`, input);
    return { status: response.status, body: await response.json() };
  }
}
