// The public demo: none-mode provider operations only, as the internal `demo` account, with a strict per-visitor rate
// limit; no platform operation, no connection, nothing of any account.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectedError, type TestGateway } from "../harness.ts";
import { startConsoleGateway } from "./console-client.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startConsoleGateway();
});
afterAll(() => t.close());

const run = (provider: string, operation: string, body: unknown = {}, headers: Record<string, string> = {}) =>
  fetch(`${t.url}/demo/api/run/${provider}/${operation}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("the demo", () => {
  it("lists the none-mode operations of the providers, and nothing else", async () => {
    const response = await fetch(`${t.url}/demo/api/operations`);
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as any;
    expect(data.rate_limit).toEqual({ perMinute: 10, burst: 5 });
    const ids = data.operations.map((o: any) => `${o.provider_id}:${o.operation_id}`);
    expect(ids).toContain("echo:say");
    expect(ids).not.toContain("echo:whoami");
    expect(ids.filter((id: string) => id.startsWith("platform:"))).toEqual([]);
  });

  it("reaches no platform operation and no credentials operation", async () => {
    for (const [provider, operation] of [
      ["platform", "list_api_keys"],
      ["platform", "create_api_key"],
      ["platform", "list_events"],
      ["echo", "whoami"],
      ["nope", "nothing"],
    ] as const) {
      const response = await run(provider, operation, {}, { authorization: `Bearer ${t.key}` });
      expect(response.status).toBe(404);
      expect(((await response.json()) as any).error).toMatchObject(expectedError("not_found"));
    }
  });

  it("runs as the demo account whatever credentials come with it, then limits the visitor", async () => {
    const first = await run("echo", "say", { text: "demo" }, { authorization: `Bearer ${t.key}` });
    expect(first.status).toBe(200);
    expect(((await first.json()) as any).data).toEqual({ text: "demo", account_id: "demo" });
    // The visitor's limit speaks the same headers as a key's on /v1: 10 a minute, a burst of 5, one used.
    expect(first.headers.get("ratelimit-policy")).toBe('"default";q=10;w=60');
    expect(first.headers.get("ratelimit")).toBe('"default";r=4;t=6');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await run("echo", "say", { text: `n${i}` })).status);
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
    const limited = await run("echo", "say", { text: "again" });
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as any).error).toMatchObject(expectedError("rate_limited"));
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("ratelimit-policy")).toBe('"default";q=10;w=60');
    expect(limited.headers.get("ratelimit")).toBe(`"default";r=0;t=${retryAfter}`);
    // /metrics counts the refused runs under the operation they named, as the ones that ran.
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_requests_total\{provider="echo",operation="say",status="429"\} [1-9]/m);
    expect(metrics).not.toContain('operation="/demo/api/run/:provider/:operation",status="429"');
  });

  it("serves its page without a session", async () => {
    const response = await fetch(`${t.url}/demo`);
    expect([200, 503]).toContain(response.status);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });
});

describe("the demo behind a proxy", () => {
  const from = (gateway: TestGateway, visitor: string) =>
    fetch(`${gateway.url}/demo/api/run/echo/say`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": visitor },
      body: JSON.stringify({ text: visitor }),
    });
  const burst = async (gateway: TestGateway, visitor: string) => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await from(gateway, visitor)).status);
    return statuses;
  };

  it("with GATEWAY_TRUST_PROXY naming the proxy, limits each forwarded visitor on its own", async () => {
    const proxied = await startConsoleGateway({ env: { GATEWAY_TRUST_PROXY: "127.0.0.1" } });
    try {
      expect(await burst(proxied, "203.0.113.7")).toEqual([200, 200, 200, 200, 200, 429]);
      expect((await from(proxied, "203.0.113.8")).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  it("without it, ignores X-Forwarded-For: a client cannot make itself a new visitor", async () => {
    const direct = await startConsoleGateway();
    try {
      expect(await burst(direct, "198.51.100.1")).toEqual([200, 200, 200, 200, 200, 429]);
      expect((await from(direct, "198.51.100.2")).status).toBe(429);
    } finally {
      await direct.close();
    }
  });
});
