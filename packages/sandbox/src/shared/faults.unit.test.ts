// Fault injection over real HTTP on a minimal sandbox app: arm, match by path prefix, count down, delay, clear.
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandboxApp } from "./app.ts";
import { clientFor } from "./test-client.ts";

let app: FastifyInstance;
let baseUrl = "";
const client = clientFor(() => baseUrl);

beforeAll(async () => {
  app = createSandboxApp({
    providerId: "test",
    formatError: ({ status, kind, message }) => ({ failure: { status, kind, message } }),
  });
  app.get("/things", async () => ({ things: [1, 2, 3] }));
  app.get("/other", async () => ({ other: true }));
  baseUrl = await app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(() => app.close());
beforeEach(() => client.del("/_sandbox/faults"));

describe("fault injection", () => {
  it("answers the injected status once, in the upstream's error format, then recovers", async () => {
    expect((await client.post("/_sandbox/faults", { status: 503 })).status).toBe(201);
    const failed = await client.get("/things");
    expect(failed.status).toBe(503);
    expect(failed.body).toEqual({ failure: { status: 503, kind: "injected_fault", message: expect.any(String) } });
    const recovered = await client.get("/things");
    expect(recovered).toMatchObject({ status: 200, body: { things: [1, 2, 3] } });
  });

  it("counts down over several requests and sets Retry-After when asked", async () => {
    await client.post("/_sandbox/faults", { status: 429, count: 2, retry_after: 7 });
    const first = await client.get("/things");
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("7");
    expect((await client.get("/other")).status).toBe(429);
    expect((await client.get("/things")).status).toBe(200);
  });

  it("only hits requests under path_prefix and leaves the control routes alone", async () => {
    await client.post("/_sandbox/faults", { status: 500, path_prefix: "/other" });
    expect((await client.get("/_sandbox/faults")).body.faults).toEqual([
      { status: 500, remaining: 1, delay_ms: 0, path_prefix: "/other", retry_after: null },
    ]);
    expect((await client.get("/things")).status).toBe(200);
    expect((await client.get("/_sandbox/health")).status).toBe(200);
    expect((await client.get("/other")).status).toBe(500);
    expect((await client.get("/other")).status).toBe(200);
  });

  it("delays a request by delay_ms and then answers normally", async () => {
    await client.post("/_sandbox/faults", { delay_ms: 300 });
    const started = Date.now();
    const response = await client.get("/things");
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it("lets a caller's timeout fire while the request hangs", async () => {
    await client.post("/_sandbox/faults", { delay_ms: 5_000, status: 503 });
    await expect(client.get("/things", { signal: AbortSignal.timeout(150) })).rejects.toThrow();
    // The abandoned request released its fault; the next one is served at once.
    expect((await client.get("/things")).status).toBe(200);
  });

  it("clears every armed fault on DELETE", async () => {
    await client.post("/_sandbox/faults", { status: 503, count: 5 });
    expect((await client.del("/_sandbox/faults")).body).toEqual({ cleared: 1 });
    expect((await client.get("/things")).status).toBe(200);
  });

  it("refuses a malformed fault rule with 400 in the upstream's format", async () => {
    expect((await client.post("/_sandbox/faults", {})).body.failure.status).toBe(400);
    expect((await client.post("/_sandbox/faults", { status: 200 })).status).toBe(400);
    expect((await client.post("/_sandbox/faults", { status: 503, surprise: true })).status).toBe(400);
  });

  it("answers unknown routes with 404 in the upstream's format", async () => {
    const response = await client.get("/missing");
    expect(response).toMatchObject({ status: 404, body: { failure: { kind: "not_found" } } });
  });
});

describe("closing a sandbox", () => {
  it("does not wait for a request held by a long delay", async () => {
    const other = createSandboxApp({ providerId: "test", formatError: (e) => e });
    other.get("/slow", async () => ({ ok: true }));
    const url = await other.listen({ host: "127.0.0.1", port: 0 });
    await fetch(`${url}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ delay_ms: 60_000 }),
    });
    const pending = fetch(`${url}/slow`).catch(() => "aborted");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await other.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    await pending;
  });
});
