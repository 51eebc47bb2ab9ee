// The wire format of the uniform route over real HTTP: success envelope, request ids, and every way a request can be
// malformed, each answered with the exact error envelope.
import net from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";
import { captureLog } from "../../test/log-capture.ts";
import { rawExchange } from "../../test/raw-http.ts";
import { armFault } from "../../test/sandbox-faults.ts";

let t: TestGateway;
const log = captureLog();
beforeAll(async () => {
  t = await startTestGateway({ logger: { level: "info", stream: log.stream } });
});
afterAll(async () => t?.close());

const requestIdPattern = /^req_[0-9A-Za-z]{20}$/;

async function post(
  path: string,
  init: { body?: string | Uint8Array<ArrayBuffer>; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${t.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.key}`, ...init.headers },
    ...(init.body !== undefined && { body: init.body }),
  });
  return { response, json: (await response.json()) as Record<string, any> };
}

function expectError(
  result: { response: Response; json: Record<string, any> },
  status: number,
  code: string,
  message: string | RegExp,
) {
  const requestId = result.response.headers.get("x-request-id");
  expect(result.response.status).toBe(status);
  expect(result.response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(requestId).toMatch(requestIdPattern);
  expect(result.json.error.request_id).toBe(requestId);
  expect(result.json.error.code).toBe(code);
  expect(result.json.error.retryable).toBe(false);
  expect(result.json.error).not.toHaveProperty("provider");
  expect(result.json.error.message).toMatch(message);
}

/**
 * Sends raw bytes and reads the whole answer, until the gateway closes the connection (the requests ask it to, or
 * are refused). For what fetch cannot send: repeated headers, no Host, other transfer codings, CONNECT.
 */
async function exchange(bytes: string): Promise<{ head: string[]; json: Record<string, any> }> {
  const answer = await rawExchange(t.url, bytes);
  const [head = "", body = ""] = answer.split("\r\n\r\n");
  return { head: head.split("\r\n"), json: body === "" ? {} : JSON.parse(body) };
}

describe("success envelope", () => {
  it("wraps data with meta and the list's pagination, and carries X-Request-Id", async () => {
    const { response, json } = await post("/v1/platform/list_api_keys", {
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toMatch(requestIdPattern);
    expect(Object.keys(json).sort()).toEqual(["data", "meta", "pagination"]);
    expect(json.meta).toEqual({ source: "platform", fetched_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    expect(json.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(json.data.api_keys).toHaveLength(1);
    expect(json.data.api_keys[0]).not.toHaveProperty("key");
    expect(json.data.api_keys[0]).not.toHaveProperty("key_hash");
  });

  it("has a null pagination where the answer is not a list", async () => {
    const { response, json } = await post("/v1/opendata/lookup_postal_code", {
      body: '{"postal_code":"1000001"}',
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(200);
    expect(Object.keys(json).sort()).toEqual(["data", "meta", "pagination"]);
    expect(json.pagination).toBeNull();
  });

  it("accepts an empty body, with or without a content type, for operations without input", async () => {
    for (const headers of [{}, { "content-type": "application/json" }]) {
      const { response } = await post("/v1/platform/list_api_keys", { headers });
      expect(response.status).toBe(200);
    }
  });

  it("answers distinct request ids", async () => {
    const a = await post("/v1/platform/list_api_keys");
    const b = await post("/v1/platform/list_api_keys");
    expect(a.response.headers.get("x-request-id")).not.toBe(b.response.headers.get("x-request-id"));
  });
});

describe("malformed requests", () => {
  const json = { "content-type": "application/json" };

  it("refuses malformed JSON, naming the problem without quoting the body back", async () => {
    for (const [body, problem] of [
      ['{"a":', "Unexpected end of JSON input"],
      ['{"card": 4242 x}', "Expected ',' or '}' after property value in JSON at position 14"],
      ['{"card": x}', "Unexpected token 'x'"],
    ]) {
      const result = await post("/v1/platform/list_api_keys", { body: body as string, headers: json });
      expectError(result, 400, "invalid_request", "");
      expect(result.json.error.message).toBe(`The body is not valid JSON: ${problem}`);
    }
  });

  it("refuses bytes that are not UTF-8, and a charset other than UTF-8, rather than replacing characters", async () => {
    // "café" in Latin-1: 0xE9 is not UTF-8.
    const latin1 = new Uint8Array([...Buffer.from('{"name":"caf'), 0xe9, ...Buffer.from('"}')]);
    const result = await post("/v1/platform/create_api_key", { body: latin1, headers: json });
    expectError(result, 400, "invalid_request", "The body is not valid UTF-8; send JSON encoded as UTF-8");
    const declared = await post("/v1/platform/list_api_keys", {
      body: "{}",
      headers: { "content-type": "application/json; charset=ISO-8859-1" },
    });
    expectError(
      declared,
      400,
      "invalid_request",
      "Content-Type charset iso-8859-1 is not supported; send JSON encoded as UTF-8",
    );
    for (const [type, message] of [
      ["application/json; charset=", "Content-Type has an empty charset; send application/json, or with charset=utf-8"],
      [
        "application/json; charset=utf-8; charset=latin1",
        "Content-Type names a charset more than once; send application/json, or with charset=utf-8",
      ],
    ] as const) {
      const refused = await post("/v1/platform/list_api_keys", { body: "{}", headers: { "content-type": type } });
      expectError(refused, 400, "invalid_request", message);
    }
    for (const type of ["application/json; charset=utf-8", 'application/json;charset="UTF-8"']) {
      const accepted = await post("/v1/platform/list_api_keys", { body: "{}", headers: { "content-type": type } });
      expect(accepted.response.status).toBe(200);
    }
    // Multi-byte UTF-8 is of course fine.
    const kanji = await post("/v1/opendata/lookup_postal_code", { body: '{"postal_code":"1000001"}', headers: json });
    expect(kanji.response.status).toBe(200);
  });

  /** Sends create_api_key a body the parser refuses: asserts the 400, its message and details, and no key made. */
  async function expectBodyRefused(body: string, message: string, details: { path: string; message: string }[]) {
    const before = await post("/v1/platform/list_api_keys", { body: "{}", headers: json });
    const result = await post("/v1/platform/create_api_key", { body, headers: json });
    expectError(result, 400, "invalid_request", "");
    expect(result.json.error.message).toBe(message);
    expect(result.json.error.details).toEqual(details);
    const after = await post("/v1/platform/list_api_keys", { body: "{}", headers: json });
    expect(after.json.data).toEqual(before.json.data);
  }
  const nul = "The body contains the NUL character (\\u0000), which no field accepts";
  const nulReason = "must not contain the NUL character (\\u0000)";

  it("refuses the NUL character anywhere in the body, naming every place, and stores nothing", async () => {
    await expectBodyRefused(
      '{"name":"a\\u0000b","scopes":["opendata","catalog\\u0000"],"note\\u0000":1,"text":"\\\\u0000 is fine"}',
      nul,
      [
        { path: "/name", message: nulReason },
        { path: "/scopes/1", message: nulReason },
        { path: "/note\u0000", message: nulReason },
      ],
    );
  });

  it("refuses a number too large to represent (Infinity once parsed), which an integer field would take", async () => {
    const tooLarge = "is too large: numbers must lie within ±1.7976931348623157e308";
    await expectBodyRefused(
      `{"name":"k","scopes":["*"],"rate_limit":{"per_minute":1e400,"burst":-1E+999},"n":${"9".repeat(309)},"ok":1.5e308,"m":2${"0".repeat(209)}e99,"f":1${"0".repeat(250)}.5e60,"e":1${"0".repeat(208)}e99}`,
      "The body contains a number too large to represent",
      [
        { path: "/rate_limit/per_minute", message: tooLarge },
        { path: "/rate_limit/burst", message: tooLarge },
        { path: "/n", message: tooLarge },
        // Fewer than 309 digits and an exponent of two: Infinity all the same (1e209 × 1e99 is the largest that is not).
        { path: "/m", message: tooLarge },
        { path: "/f", message: tooLarge },
      ],
    );
  });

  it("finds the NUL character however deeply the body nests, and answers 400 rather than failing", async () => {
    // 200,000 levels: a walk that recursed would run out of stack long before the bottom.
    const depth = 200_000;
    await expectBodyRefused(
      `{"name":"key","scopes":["*"],"deep":${"[".repeat(depth)}"\\u0000"${"]".repeat(depth)}}`,
      nul,
      [{ path: `/deep${"/0".repeat(depth)}`, message: nulReason }],
    );
  });

  it("lists every place of a NUL character, up to 10,000 of them", async () => {
    const nulScopes = async (count: number) => {
      const result = await post("/v1/platform/create_api_key", {
        body: JSON.stringify({ name: "k", scopes: Array(count).fill("\u0000") }),
        headers: json,
      });
      expectError(result, 400, "invalid_request", "");
      return (result.json.error.details as { path: string }[]).map((d) => d.path);
    };
    expect(await nulScopes(5000)).toEqual(Array.from({ length: 5000 }, (_, i) => `/scopes/${i}`));
    expect(await nulScopes(12_000)).toEqual(Array.from({ length: 10_000 }, (_, i) => `/scopes/${i}`));
  });

  it("names places deep in the body until their pointers fill 256 KiB, answering at once", async () => {
    // 20,000 members named "\u0000", each inside the last: every one is a place, each pointer as long as it is deep.
    const depth = 20_000;
    const body = `{"name":"k","scopes":["*"],"x":${'{"\\u0000":'.repeat(depth)}1${"}".repeat(depth)}}`;
    const result = await post("/v1/platform/create_api_key", { body, headers: json });
    expectError(
      result,
      400,
      "invalid_request",
      "The body contains the NUL character (\\u0000), which no field accepts",
    );
    const paths = (result.json.error.details as { path: string }[]).map((d) => d.path);
    expect(paths[0]).toBe("/x/\u0000");
    const total = paths.reduce((sum, path) => sum + path.length, 0);
    expect(total).toBeGreaterThanOrEqual(256 * 1024);
    expect(total - (paths.at(-1) ?? "").length).toBeLessThan(256 * 1024);
  });

  it("refuses a lone surrogate, which no string of UTF-8 can hold, naming every place, and stores nothing", async () => {
    await expectBodyRefused(
      '{"name":"lone-\\ud800-x","scopes":["opendata"],"tail\\udfff":1,"pair":"\\ud83d\\ude00"}',
      "The body contains a lone surrogate (\\ud800 to \\udfff without its pair), which is no character",
      [
        { path: "/name", message: "must not contain a lone surrogate (\\ud800 to \\udfff without its pair)" },
        { path: "/tail\udfff", message: "must not contain a lone surrogate (\\ud800 to \\udfff without its pair)" },
      ],
    );
    // A whole pair, escaped, is one character like any other.
    const paired = await post("/v1/platform/create_api_key", {
      body: '{"name":"smile \\ud83d\\ude00","scopes":["opendata"]}',
      headers: json,
    });
    expect(paired.response.status).toBe(200);
    expect(paired.json.data.api_key.name).toBe("smile \u{1F600}");
  });

  it('refuses members named "__proto__", or "constructor" holding "prototype", naming each, and stores nothing', async () => {
    await expectBodyRefused(
      '{"name":"k","scopes":["*"],"__proto__":{"admin":true},"a":[{"constructor":{"prototype":{}}}],"constructor":1}',
      'The body has a member named "__proto__", or "constructor" holding "prototype", which no field accepts',
      [
        { path: "/__proto__", message: 'must not be named "__proto__"' },
        { path: "/a/0/constructor", message: 'must not be named "constructor" and hold "prototype"' },
      ],
    );
  });

  it("refuses a compressed body by its Content-Encoding", async () => {
    const result = await post("/v1/platform/list_api_keys", {
      body: new Uint8Array(gzipSync('{"a":1}')),
      headers: { ...json, "content-encoding": "gzip" },
    });
    expectError(result, 400, "invalid_request", "");
    expect(result.json.error.message).toBe("Content-Encoding gzip is not supported; send the body uncompressed");
    const identity = await post("/v1/platform/list_api_keys", {
      body: "{}",
      headers: { ...json, "content-encoding": "identity" },
    });
    expect(identity.response.status).toBe(200);
    // An empty list of codings is none.
    const none = await post("/v1/platform/list_api_keys", { body: "{}", headers: { ...json, "content-encoding": "" } });
    expect(none.response.status).toBe(200);
  });

  it("refuses a transfer coding other than chunked, which Node would not decode", async () => {
    const { head, json } = await exchange(
      `POST /v1/platform/list_api_keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\n` +
        "Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n" +
        "2\r\n{}\r\n0\r\n\r\n",
    );
    expect(head[0]).toBe("HTTP/1.1 400 Bad Request");
    expect(json.error).toMatchObject({
      code: "invalid_request",
      message: "Transfer-Encoding gzip, chunked is not supported; send the body uncompressed (chunked is fine)",
    });
  });

  it("refuses a query string on the uniform route, which would be ignored, naming each parameter", async () => {
    const result = await post("/v1/platform/list_events?limit=1&a/b=2", { body: "{}", headers: json });
    expectError(
      result,
      400,
      "invalid_request",
      "POST /v1/platform/list_events takes no query parameters; send the input in the JSON body",
    );
    expect(result.json.error.details).toEqual([
      { path: "/query/limit", message: "is not an allowed parameter" },
      { path: "/query/a~1b", message: "is not an allowed parameter" },
    ]);
    // A lone "?" carries no parameter.
    expect((await post("/v1/platform/list_events?", { body: "{}", headers: json })).response.status).toBe(200);
  });

  it("refuses a body that is not an object", async () => {
    for (const [body, kind] of [
      ["[1,2]", "an array"],
      ['"text"', "a string"],
      ["42", "a number"],
      ["null", "null"],
    ]) {
      const result = await post("/v1/platform/list_api_keys", { body: body as string, headers: json });
      expectError(result, 400, "invalid_request", `The body must be a JSON object, not ${kind}`);
      expect(result.json.error.details).toEqual([{ path: "", message: "must be object" }]);
    }
  });

  it("refuses other content types and a body without one", async () => {
    expectError(
      await post("/v1/platform/list_api_keys", {
        body: "a=1",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
      400,
      "invalid_request",
      "Content-Type application/x-www-form-urlencoded is not supported; send application/json",
    );
    expectError(
      await post("/v1/platform/list_api_keys", {
        body: "{}",
        headers: { "content-type": "application/json, text/plain" },
      }),
      400,
      "invalid_request",
      'Content-Type "application/json, text/plain" is not one media type; send application/json',
    );
    const bare = await fetch(`${t.url}/v1/platform/list_api_keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.key}` },
      body: new Uint8Array([123, 125]),
    });
    expectError(
      { response: bare, json: await bare.json() },
      400,
      "invalid_request",
      "A body needs Content-Type: application/json",
    );
  });

  it("refuses a body over 1 MiB", async () => {
    const body = JSON.stringify({ name: "x".repeat(1024 * 1024) });
    expectError(
      await post("/v1/platform/create_api_key", { body, headers: json }),
      400,
      "invalid_request",
      "The request body is larger than the 1 MiB limit",
    );
  });

  it("lists every failing field in details, with JSON pointers", async () => {
    const body = JSON.stringify({ scopes: ["ok", "Not A Scope", 7], name: 5, colour: "blue" });
    const result = await post("/v1/platform/create_api_key", { body, headers: json });
    expectError(result, 400, "invalid_request", "The input of platform:create_api_key is invalid");
    const details = result.json.error.details as { path: string; message: string }[];
    // "ok" is a well-formed scope that names no provider: a rule beyond the schema, listed with the schema's problems.
    expect(details.map((d) => d.path).sort()).toEqual(["/colour", "/name", "/scopes/0", "/scopes/1", "/scopes/2"]);
    expect(details.find((d) => d.path === "/scopes/0")?.message).toBe(
      '"ok": there is no provider "ok"; GET /v1/operations lists them',
    );
    expect(details.find((d) => d.path === "/colour")?.message).toBe("is not an allowed property");
    expect(details.find((d) => d.path === "/name")?.message).toBe("must be string");
  });

  it("lists every problem of an input of up to 10,000 values, and only the first of a larger one", async () => {
    const many = await post("/v1/platform/create_api_key", {
      body: JSON.stringify({ name: "k", scopes: Array(40).fill(7) }),
      headers: json,
    });
    expectError(many, 400, "invalid_request", "The input of platform:create_api_key is invalid");
    expect(many.json.error.details).toEqual(
      Array.from({ length: 40 }, (_, i) => ({ path: `/scopes/${i}`, message: "must be string" })),
    );
    // Half a million values in under 1 MiB: listing a problem for each would take seconds and answer 177 MB.
    const huge = await post("/v1/platform/set_webhook_endpoint", {
      body: JSON.stringify({ url: "https://example.com/hooks", event_types: Array(520_000).fill(1) }),
      headers: json,
    });
    expectError(huge, 400, "invalid_request", "The input of platform:set_webhook_endpoint is invalid");
    expect(huge.json.error.details).toEqual([{ path: "/event_types", message: "must NOT have more than 50 items" }]);
    // Nor are the operation's own rules run on such an input: 120,000 unknown scopes are one problem, not 120,000.
    const unknownScopes = await post("/v1/platform/create_api_key", {
      body: JSON.stringify({ name: "k", scopes: Array(120_000).fill("no") }),
      headers: json,
    });
    expectError(unknownScopes, 400, "invalid_request", "The input of platform:create_api_key is invalid");
    expect(unknownScopes.json.error.details).toHaveLength(1);
  });

  it("reports a missing required field at its path", async () => {
    const result = await post("/v1/platform/create_api_key", { body: "{}", headers: json });
    expect(result.json.error.details).toEqual([{ path: "/scopes", message: "is required" }]);
  });

  it("answers a wrong method with 400 and an Allow header", async () => {
    const response = await fetch(`${t.url}/v1/platform/list_api_keys`, {
      headers: { authorization: `Bearer ${t.key}` },
    });
    expect(response.headers.get("allow")).toBe("POST");
    expectError(
      { response, json: await response.json() },
      400,
      "invalid_request",
      "GET is not allowed on /v1/platform/list_api_keys; use POST",
    );
  });

  it("answers unknown providers, operations and paths with 404 not_found", async () => {
    expectError(
      await post("/v1/nosuch/op"),
      404,
      "not_found",
      'There is no provider "nosuch"; GET /v1/operations lists them',
    );
    expectError(
      await post("/v1/platform/nosuch"),
      404,
      "not_found",
      'The platform provider has no operation "nosuch"; GET /v1/operations lists them',
    );
    // An id from the path is repeated with the characters that would act (an override, zero-width) escaped.
    expectError(
      await post(`/v1/${encodeURIComponent("no\u202esuch")}/op`),
      404,
      "not_found",
      'There is no provider "no\\u202esuch"; GET /v1/operations lists them',
    );
    expectError(
      await post(`/v1/platform/${encodeURIComponent("no\u200bsuch")}`),
      404,
      "not_found",
      'The platform provider has no operation "no\\u200bsuch"; GET /v1/operations lists them',
    );
    const response = await fetch(`${t.url}/nowhere`);
    expectError({ response, json: await response.json() }, 404, "not_found", "No route GET /nowhere");
  });

  it("answers a request to no route for its route, whatever its body and Content-Type", async () => {
    const form = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "a=1" };
    const nowhere = await fetch(`${t.url}/nowhere`, form);
    expectError({ response: nowhere, json: await nowhere.json() }, 404, "not_found", "No route POST /nowhere");
    const slashed = await fetch(`${t.url}/v1/platform/list_api_keys/`, {
      ...form,
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expectError(
      { response: slashed, json: await slashed.json() },
      404,
      "not_found",
      "No route POST /v1/platform/list_api_keys/; did you mean /v1/platform/list_api_keys (without the trailing slash)?",
    );
    const wrongMethod = await fetch(`${t.url}/v1/operations`, form);
    expect(wrongMethod.headers.get("allow")).toBe("GET, HEAD");
    expectError(
      { response: wrongMethod, json: await wrongMethod.json() },
      400,
      "invalid_request",
      "POST is not allowed on /v1/operations; use GET or HEAD",
    );
  });

  it("repeats at most 200 characters of a path no route has", async () => {
    const path = `/v1/${"x".repeat(90)}/${"y".repeat(90)}/${"z".repeat(90)}`;
    const { response, json } = await post(path, { body: "{}", headers: { "content-type": "application/json" } });
    expect(response.status).toBe(404);
    expect(json.error.message).toBe(`No route POST ${path.slice(0, 199)}…`);
  });

  it("answers a path with a trailing slash with 404 not_found naming the path meant", async () => {
    const slashed = await post("/v1/platform/list_api_keys/");
    expect(slashed.response.headers.get("allow")).toBeNull();
    expectError(
      slashed,
      404,
      "not_found",
      "No route POST /v1/platform/list_api_keys/; did you mean /v1/platform/list_api_keys (without the trailing slash)?",
    );
    // The wrong method on a slashed path is still no route: only the exact path has methods.
    const response = await fetch(`${t.url}/v1/platform/list_api_keys/`, {
      headers: { authorization: `Bearer ${t.key}` },
    });
    expectError(
      { response, json: await response.json() },
      404,
      "not_found",
      "No route GET /v1/platform/list_api_keys/",
    );
  });

  it("answers what the router refuses (a malformed or over-long path) with the envelope", async () => {
    const badEscape = await post("/v1/%zz/op");
    expectError(badEscape, 400, "invalid_request", "");
    expect(badEscape.json.error.message).toBe("The request path is not valid: it has a malformed percent-encoding");
    const long = await post(`/v1/opendata/${"a".repeat(200)}`);
    expectError(long, 404, "not_found", "");
    expect(long.json.error.message).toBe("The request path has a segment over 100 characters: no route is named so");
  });
});

describe("headers that must be sent once", () => {
  /** A POST with the given header lines, over a raw socket: fetch would join repeated headers into one. */
  async function postWithHeaders(lines: string[], body = "{}") {
    const { head, json } = await exchange(
      "POST /v1/platform/list_api_keys HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
        `${lines.map((line) => `${line}\r\n`).join("")}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    return { status: Number(head[0]?.split(" ")[1]), json };
  }
  const type = "Content-Type: application/json";

  it("refuses two Authorization headers, rather than using the first", async () => {
    const created = await t.call("platform", "create_api_key", { scopes: ["opendata"] });
    const other = ((await created.json()) as { data: { key: string } }).data.key;
    const result = await postWithHeaders([`Authorization: Bearer ${t.key}`, `authorization: Bearer ${other}`, type]);
    expect(result.status).toBe(401);
    expect(result.json.error).toMatchObject({
      code: "unauthorized",
      message: "The Authorization header was sent more than once: send one key",
    });
    expect((await postWithHeaders([`Authorization: Bearer ${t.key}`, type])).status).toBe(200);
  });

  it("refuses two Idempotency-Key headers, even equal ones, rather than joining them into another key", async () => {
    const result = await postWithHeaders([
      `Authorization: Bearer ${t.key}`,
      type,
      "Idempotency-Key: k1",
      "Idempotency-Key: k1",
    ]);
    expect(result.status).toBe(400);
    expect(result.json.error).toMatchObject({
      code: "invalid_request",
      message: "The Idempotency-Key header must be sent once",
      details: [{ path: "/headers/idempotency-key", message: "must be sent once" }],
    });
  });

  it("refuses two Content-Type headers", async () => {
    const result = await postWithHeaders([`Authorization: Bearer ${t.key}`, type, "Content-Type: text/plain"]);
    expect(result.status).toBe(400);
    expect(result.json.error).toMatchObject({
      code: "invalid_request",
      message: "Content-Type was sent more than once; send it once, as application/json",
    });
  });
});

it("answers an HTTP/1.1 request without Host with the envelope and a request id", async () => {
  const { head, json } = await exchange("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n");
  const requestId = head.find((line) => line.startsWith("x-request-id: "))?.slice("x-request-id: ".length);
  expect(head[0]).toBe("HTTP/1.1 400 Bad Request");
  expect(requestId).toMatch(requestIdPattern);
  expect(json).toEqual({
    error: {
      code: "invalid_request",
      message: "An HTTP/1.1 request needs a Host header",
      request_id: requestId,
      retryable: false,
    },
  });
  const twice = await exchange(
    "GET /healthz HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nConnection: close\r\n\r\n",
  );
  expect([twice.head[0], twice.json.error?.message]).toEqual([
    "HTTP/1.1 400 Bad Request",
    "The Host header was sent more than once",
  ]);
  // HTTP/1.0 has no Host header to require.
  expect((await exchange("GET /healthz HTTP/1.0\r\n\r\n")).head[0]).toBe("HTTP/1.1 200 OK");
});

describe("a request whose client closes the connection before the answer", () => {
  it("is logged and counted once, as 499, with the time it ran for", async () => {
    await armFault(t.gateway.upstreamUrls.catalog, { delay_ms: 1500, count: 1, path_prefix: "/api/v1/site" });
    const before = log.lines().length;
    const aborted = await fetch(`${t.url}/v1/catalog/site_metadata`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.key}` },
      signal: AbortSignal.timeout(300),
    }).catch((error: unknown) => error);
    expect(aborted).toBeInstanceOf(Error);
    // The operation runs on; once it ends, nothing more is logged for the request.
    await new Promise((resolve) => setTimeout(resolve, 1800));
    const lines = log
      .lines()
      .slice(before)
      .filter((line) => line.path === "/v1/catalog/site_metadata");
    expect(lines).toEqual([
      expect.objectContaining({
        msg: "request",
        status: 499,
        provider: "catalog",
        operation: "site_metadata",
        latency_ms: expect.any(Number),
      }),
    ]);
    expect(lines[0]?.latency_ms).toBeGreaterThanOrEqual(250);
    expect(lines[0]?.latency_ms).toBeLessThan(1500);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_requests_total\{provider="catalog",operation="site_metadata",status="499"\} 1/);
  });

  /** Holds the catalogue's next `count` site_metadata answers for 1.5 s. */
  const delaySiteMetadata = async (count: number) => {
    await armFault(t.gateway.upstreamUrls.catalog, { delay_ms: 1500, count, path_prefix: "/api/v1/site" });
  };
  /** Sends `count` site_metadata requests, whole, on one new connection (pipelined); answers the socket. */
  const sendWhole = async (count: number) => {
    const { port, hostname } = new URL(t.url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.on("error", () => {});
    const request =
      `POST /v1/catalog/site_metadata HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.key}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
    socket.write(request.repeat(count));
    return socket;
  };
  const siteMetadataLines = (from: number) =>
    log
      .lines()
      .slice(from)
      .filter((line) => line.path === "/v1/catalog/site_metadata");
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  // A request whose body was read whole is not "aborted" for Node when its connection closes, and its answer, written
  // to a closed connection, never finishes: it is observed when the connection closes, like one without a body.
  for (const close of ["end", "resetAndDestroy"] as const) {
    it(`is logged and counted once, as 499, when its whole body was sent before the connection closed (${close})`, async () => {
      const counted = async () => {
        const metrics = await (await fetch(`${t.url}/metrics`)).text();
        const line = /gateway_requests_total\{provider="catalog",operation="site_metadata",status="499"\} (\d+)/;
        return Number(metrics.match(line)?.[1] ?? 0);
      };
      const countedBefore = await counted();
      await delaySiteMetadata(1);
      const before = log.lines().length;
      const socket = await sendWhole(1);
      await sleep(200);
      socket[close]();
      // The operation runs on and ends meanwhile: its answer goes nowhere, and nothing more is logged.
      await sleep(1800);
      const lines = siteMetadataLines(before);
      expect(lines).toEqual([
        expect.objectContaining({ msg: "request", status: 499, provider: "catalog", operation: "site_metadata" }),
      ]);
      // It ran until the close, 200 ms after it was sent (less what the server took to begin it), not to its answer.
      expect(lines[0]?.latency_ms).toBeGreaterThanOrEqual(100);
      expect(lines[0]?.latency_ms).toBeLessThan(1500);
      expect(await counted()).toBe(countedBefore + 1);
    });
  }

  it("logs and counts every request pipelined on the connection, each once, as 499", async () => {
    await delaySiteMetadata(3);
    const before = log.lines().length;
    // Node answers pipelined requests in order: the second and third wait behind the first, unanswered.
    const socket = await sendWhole(3);
    await sleep(200);
    socket.resetAndDestroy();
    await sleep(1800);
    const lines = siteMetadataLines(before);
    expect(lines.map((line) => [line.status, line.operation])).toEqual([
      [499, "site_metadata"],
      [499, "site_metadata"],
      [499, "site_metadata"],
    ]);
    expect(new Set(lines.map((line) => line.request_id)).size).toBe(3);
  });
});

it("counts a request refused before its route's hooks (401, unreadable body) under the operation it named", async () => {
  const counted = async (status: number) => {
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    const line = new RegExp(
      `gateway_requests_total\\{provider="opendata",operation="list_holidays",status="${status}"\\} (\\d+)`,
    );
    return Number(metrics.match(line)?.[1] ?? 0);
  };
  const before = [await counted(401), await counted(400)];
  const path = "/v1/opendata/list_holidays";
  expectError(await post(path, { headers: { authorization: "Bearer nope" } }), 401, "unauthorized", /API key/);
  expectError(
    await post(path, { body: "{", headers: { "content-type": "application/json" } }),
    400,
    "invalid_request",
    /JSON/,
  );
  expectError(
    await post(path, { body: "x", headers: { "content-type": "text/plain" } }),
    400,
    "invalid_request",
    /Content-Type/,
  );
  expect([await counted(401), await counted(400)]).toEqual([before[0]! + 1, before[1]! + 2]);
  // An operation the registry does not have is counted under the route, never under the name it was sent.
  expect((await post("/v1/opendata/no_such_operation")).response.status).toBe(404);
  const metrics = await (await fetch(`${t.url}/metrics`)).text();
  expect(metrics).not.toContain("no_such_operation");
  expect(metrics).toMatch(
    /gateway_requests_total\{provider="-",operation="\/v1\/:provider\/:operation",status="404"\} [1-9]/,
  );
});

describe("requests Node's HTTP parser refuses", () => {
  it("answers a request pipelined before unparsable bytes with its own answer, then closes the connection", async () => {
    const body = JSON.stringify({ name: "pipelined", scopes: ["opendata"] });
    const { head, json } = await exchange(
      "POST /v1/platform/create_api_key HTTP/1.1\r\nHost: x\r\n" +
        `Authorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n` +
        `${body}GARBAGE\r\n\r\n`,
    );
    expect(head[0]).toBe("HTTP/1.1 200 OK");
    expect(head).toContain("Connection: close");
    expect(json.data.api_key).toMatchObject({ name: "pipelined", scopes: ["opendata"] });
  });

  for (const [name, bytes, message] of [
    [
      "headers over 16 KiB",
      `GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`,
      "The request line and headers are larger than the 16 KiB limit",
    ],
    [
      "a request line over 16 KiB",
      `GET /healthz?${"q".repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`,
      "The request line and headers are larger than the 16 KiB limit",
    ],
    ["a malformed request line", "GARBAGE\r\n\r\n", "The request is not valid HTTP/1.1"],
    [
      "an Expect other than 100-continue",
      "POST /v1/opendata/list_holidays HTTP/1.1\r\nhost: x\r\nexpect: 200-ok\r\ncontent-length: 2\r\n\r\n{}",
      "The Expect header asks for what the gateway does not do: send the request without it",
    ],
    [
      "the CONNECT method",
      "CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n",
      "The CONNECT method is not supported: the gateway is not a proxy",
    ],
  ] as const) {
    it(`answers ${name} with the envelope and closes the connection`, async () => {
      const { head, json } = await exchange(bytes);
      const requestId = head.find((line) => line.startsWith("x-request-id: "))?.slice("x-request-id: ".length);
      expect(requestId).toMatch(requestIdPattern);
      const body = JSON.stringify(json);
      expect(head).toEqual([
        "HTTP/1.1 400 Bad Request",
        "content-type: application/json; charset=utf-8",
        `content-length: ${Buffer.byteLength(body)}`,
        `x-request-id: ${requestId}`,
        "connection: close",
      ]);
      expect(json).toEqual({ error: { code: "invalid_request", message, request_id: requestId, retryable: false } });
      // Logged and counted like any answered request, with what it was told and nothing of what it sent.
      const logged = log.lines().find((line) => line.request_id === requestId);
      expect(logged).toMatchObject({ msg: "request refused before it was read", status: 400, error: message });
      expect(JSON.stringify(logged)).not.toContain("example.com");
      const metrics = await (await fetch(`${t.url}/metrics`)).text();
      expect(metrics).toMatch(/gateway_requests_total\{provider="-",operation="unread",status="400"\} [1-9]/);
    });
  }
});
