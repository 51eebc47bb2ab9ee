// The deadline of an upstream call: a provider that does not answer, and a call that waits in the pool's queue behind
// it until its deadline passes (and then is never sent). And the Retry-After an answer carries, and the limit on the
// size of its body.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { callUpstream, UpstreamTimeoutError, UpstreamTooLargeError } from "./upstream-call.ts";

let server: http.Server;
let pool: Pool;
const received: string[] = [];

async function silentProvider(): Promise<string> {
  received.length = 0;
  server = http.createServer((request) => {
    received.push(request.url ?? "");
    // never answers
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await pool?.destroy();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

const call = (path: string, timeoutMs: number, maxBytes = 1024 * 1024) =>
  callUpstream(pool, { method: "GET", path, headers: {}, body: null, timeoutMs, maxBytes });

describe("callUpstream deadline", () => {
  it("gives up on a provider that does not answer, as a sent call", async () => {
    pool = new Pool(await silentProvider(), { connections: 1, headersTimeout: 0, bodyTimeout: 0 });
    const started = performance.now();
    const error = await call("/slow", 300).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(UpstreamTimeoutError);
    expect(error).toMatchObject({ code: "GATEWAY_UPSTREAM_TIMEOUT", timeoutMs: 300, sent: true });
    expect(elapsed).toBeGreaterThanOrEqual(300);
    expect(received).toEqual(["/slow"]);
  });

  it("never sends a call that waited in the pool's queue past its deadline", async () => {
    pool = new Pool(await silentProvider(), { connections: 1, headersTimeout: 0, bodyTimeout: 0 });
    const settled: string[] = [];
    const settle = (name: string) => (error: unknown) => {
      settled.push(name);
      return error;
    };
    const first = call("/first", 600).catch(settle("first"));
    const queued = call("/queued", 200).catch(settle("queued"));
    expect(await queued).toMatchObject({ code: "GATEWAY_UPSTREAM_TIMEOUT", sent: false });
    expect(await first).toMatchObject({ code: "GATEWAY_UPSTREAM_TIMEOUT", sent: true });
    // The queued call failed at its own deadline, not when the socket ahead of it freed.
    expect(settled).toEqual(["queued", "first"]);
    // The first call's socket was torn down by its abort; the queued one was given up before it was written.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toEqual(["/first"]);
  });
});

describe("callUpstream Retry-After", () => {
  async function answering(headers: [string, string][]): Promise<string> {
    server = http.createServer((_request, response) => {
      response.writeHead(429, headers.flat()).end('{"error":"slow down"}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("takes the first Retry-After in any case, past other names of its length", async () => {
    const headers: [string, string][] = [
      ["X-Trace-Idx", "abc"],
      ["RETRY-after", "7"],
      ["Retry-After", "9"],
    ];
    pool = new Pool(await answering(headers), { connections: 1 });
    const answer = await call("/", 1000);
    expect(answer).toEqual({ statusCode: 429, retryAfter: "7", text: '{"error":"slow down"}' });
  });

  it("has none when the answer carries none", async () => {
    pool = new Pool(await answering([["X-Trace-Idx", "abc"]]), { connections: 1 });
    expect(await call("/", 1000)).toEqual({ statusCode: 429, retryAfter: undefined, text: '{"error":"slow down"}' });
  });
});

describe("callUpstream body limit", () => {
  it("takes a body of the limit, and gives up on one a byte longer without reading the rest", async () => {
    let written = 0;
    server = http.createServer((request, response) => {
      const size = Number(request.url?.slice(1));
      response.writeHead(200, { "content-type": "application/json" });
      // A body sent in 64 KiB pieces for as long as the socket takes them (10 s at most).
      const piece = "x".repeat(64 * 1024);
      const started = Date.now();
      const more = () => {
        while (written < size && Date.now() - started < 10_000) {
          written += piece.length;
          if (!response.write(piece)) return void response.once("drain", more);
        }
        response.end();
      };
      written = 0;
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: 1 });
    const limit = 256 * 1024;
    expect((await call(`/${limit}`, 5000, limit)).text).toHaveLength(limit);
    const huge = 100 * 1024 * 1024;
    const error = await call(`/${huge}`, 20_000, limit).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamTooLargeError);
    expect(error).toMatchObject({ code: "GATEWAY_UPSTREAM_TOO_LARGE", maxBytes: limit });
    // The connection was dropped: the provider got to write a few socket buffers' worth, not the 100 MiB.
    expect(written).toBeLessThan(huge / 10);
  });
});
