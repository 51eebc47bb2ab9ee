// The requests a sandbox saw, over real HTTP on a minimal sandbox app: each one's method, path and X-Request-Id.
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandboxApp } from "./app.ts";
import { seenRequestsKept } from "./seen-requests.ts";
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
  app.post("/things", async () => ({ made: true }));
  baseUrl = await app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(() => app.close());
beforeEach(async () => {
  await client.del("/_sandbox/requests");
  await client.del("/_sandbox/faults");
});

describe("the requests a sandbox saw", () => {
  it("lists each request's method, path and X-Request-Id as received, oldest first, and not the controls", async () => {
    await client.get("/things?limit=2", { headers: { "x-request-id": "req_first" } });
    await client.get("/_sandbox/faults");
    await client.post("/things", {});
    await client.get("/nowhere", { headers: { "X-Request-Id": "req_third" } });
    expect((await client.get("/_sandbox/requests")).body).toEqual({
      requests: [
        { method: "GET", path: "/things", request_id: "req_first" },
        { method: "POST", path: "/things", request_id: null },
        { method: "GET", path: "/nowhere", request_id: "req_third" },
      ],
    });
  });

  it("lists a request answered by an injected fault", async () => {
    await client.post("/_sandbox/faults", { status: 503 });
    expect((await client.get("/things", { headers: { "x-request-id": "req_faulted" } })).status).toBe(503);
    expect((await client.get("/_sandbox/requests")).body).toEqual({
      requests: [{ method: "GET", path: "/things", request_id: "req_faulted" }],
    });
  });

  it("forgets them on DELETE, and keeps only the latest", async () => {
    await client.get("/things");
    expect((await client.del("/_sandbox/requests")).body).toEqual({ cleared: 1 });
    for (let n = 0; n <= seenRequestsKept; n++)
      await client.get("/things", { headers: { "x-request-id": `req_${n}` } });
    const { requests } = (await client.get("/_sandbox/requests")).body;
    expect(requests.length).toBe(seenRequestsKept);
    expect([requests[0].request_id, requests.at(-1).request_id]).toEqual(["req_1", `req_${seenRequestsKept}`]);
  });
});
