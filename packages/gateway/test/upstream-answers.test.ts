// What a provider answers that its API does not give, over real HTTP from an upstream of the test's own: a 2xx that is
// not JSON (a maintenance page, a cut-off body, no body) and JSON of the wrong shape are the provider failing, a 502
// provider_unavailable with `provider`, never a 200 with made-up data nor the gateway's 500; a 429's Retry-After is
// passed on in either of its forms.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "./harness.ts";

let t: TestGateway;
let upstream: http.Server;
let url: string;
let answer: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: "" };

beforeAll(async () => {
  upstream = http.createServer((_request, response) => {
    response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => upstream?.close(resolve));
});
// A gateway of each test's own: the failures a test provokes count toward its circuit breakers.
beforeEach(async () => {
  t = await startTestGateway({
    env: { GATEWAY_UPSTREAM_CATALOG_URL: url, GATEWAY_UPSTREAM_HOMEGOODS_URL: url, GATEWAY_UPSTREAM_OPENDATA_URL: url },
  });
});
afterEach(async () => t?.close());

async function expectProviderFailure(provider: string, operation: string, input: unknown, message: string) {
  const response = await t.call(provider, operation, input);
  const body = (await response.json()) as { error: Record<string, unknown> };
  expect(response.status).toBe(502);
  expect(body.error).toEqual({
    code: "provider_unavailable",
    message,
    provider,
    request_id: response.headers.get("x-request-id"),
    retryable: true,
  });
}

/** `opendata:list_holidays` answers the 502 with this message. */
const holidaysFail = (message: string) => expectProviderFailure("opendata", "list_holidays", { year: 2026 }, message);

const operations: [string, string, Record<string, unknown>][] = [
  ["catalog", "site_metadata", {}],
  ["catalog", "product_detail", { product_id: "cat-prd-0001" }],
  ["homegoods", "site_metadata", {}],
  ["opendata", "list_holidays", { year: 2026 }],
];

describe("a 2xx that is not JSON", () => {
  for (const body of ["<html>maintenance</html>", '{"siteName": "cut', ""]) {
    it(`${JSON.stringify(body)}: 502 provider_unavailable from every provider`, async () => {
      answer = { status: 200, body };
      for (const [provider, operation, input] of operations) {
        await expectProviderFailure(
          provider,
          operation,
          input,
          `The ${provider} provider answered HTTP 200 without a JSON body`,
        );
      }
    });
  }
});

describe("JSON of the wrong shape", () => {
  it("is a 502 when the operation cannot read it, or its output would not match the schema", async () => {
    for (const body of ["null", '"text"', '{"site":null}', '{"site":{"siteCode":1}}', '{"results":[{"date":1}]}']) {
      answer = { status: 200, body };
      for (const [provider, operation, input] of operations) {
        await expectProviderFailure(
          provider,
          operation,
          input,
          `The ${provider} provider answered in a shape the gateway cannot read`,
        );
      }
    }
  });
});

describe("a catalogue answer missing or mistyping a field", () => {
  // The catalogue's outputs are generic JSON values, so its output schema cannot see a hole: its answers are checked
  // against the upstream's own record schemas before they are mapped.
  const item = {
    itemCode: "cat-prd-0001",
    itemName: "米",
    catchcopy: "",
    itemCaption: "",
    itemPrice: 4480,
    taxRate: 8,
    postageFlag: 0,
    pointRate: 1,
    genreId: 101,
    genreName: "米・雑穀",
    shopCode: "s",
    shopName: "s",
    janCode: "4900000000001",
    itemUrl: "https://example.com/i",
    imageUrls: [],
    availability: true,
    reviewCount: 0,
    reviewAverage: 0,
    tags: [],
    releaseDate: "2026-01-01",
    updatedAt: "2026-01-01T00:00:00Z",
  };
  const { itemPrice: _, ...withoutPrice } = item;

  it("is mapped when whole", async () => {
    answer = { status: 200, body: JSON.stringify({ item }) };
    const response = await t.call("catalog", "product_detail", { product_id: "cat-prd-0001" });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { price: unknown } }).data.price).toEqual({
      amount: 4480,
      currency: "JPY",
    });
  });

  it("is a 502, not a 200 with the field left out", async () => {
    const cases: [string, Record<string, unknown>, unknown][] = [
      ["product_detail", { product_id: "cat-prd-0001" }, { item: withoutPrice }],
      ["product_detail", { product_id: "cat-prd-0001" }, { item: { ...item, itemPrice: "4480" } }],
      ["search_products", { query: "米" }, { count: 1, page: 1, pageCount: 1, items: [{}] }],
      ["search_products", { query: "米" }, { count: 1, page: 1, items: [item] }],
      ["store_detail", { store_id: "cat-str-001" }, { store: { storeId: "cat-str-001" } }],
      ["search_trends", {}, { period: "daily", aggregatedFrom: "a", aggregatedTo: "b", trends: [{ rank: 1 }] }],
    ];
    for (const [operation, input, body] of cases) {
      answer = { status: 200, body: JSON.stringify(body) };
      await expectProviderFailure(
        "catalog",
        operation,
        input,
        "The catalog provider answered in a shape the gateway cannot read",
      );
    }
  });
});

describe("a provider's answer too long to take", () => {
  it("is a 502 once the body passes 16 MiB, and a provider's own error message is repeated up to 300 characters", async () => {
    answer = { status: 200, body: `{"site":"${"x".repeat(16 * 1024 * 1024)}"}` };
    await expectProviderFailure("catalog", "site_metadata", {}, "The catalog provider answered more than 16 MiB");
    answer = { status: 409, body: JSON.stringify({ message: "y".repeat(200_000) }) };
    const response = await t.call("opendata", "list_holidays", { year: 2026 });
    const message = ((await response.json()) as { error: { message: string } }).error.message;
    expect(response.status).toBe(409);
    expect(message).toMatch(/^The opendata provider reported a conflict: y{299}…$/);
  });
});

const operationsRefusal = (provider: string) => `The ${provider} provider refused the gateway's own access (HTTP 401)`;

describe("a provider's 408 and 3xx", () => {
  it("are the provider failing, a 502, like its own timeout", async () => {
    answer = { status: 408, body: "{}" };
    await holidaysFail("The opendata provider did not take the request in time (HTTP 408)");
    answer = { status: 302, body: "", headers: { location: "http://elsewhere.example/" } };
    await holidaysFail("The opendata provider failed (HTTP 302)");
  });
});

describe("a provider's 4xx and 5xx", () => {
  it("map onto the gateway's codes, each with the provider: a 403 is a refusal as a 422 is", async () => {
    const cases: [number, number, string, boolean, string][] = [
      [403, 422, "provider_rejected", false, "refused the request"],
      [422, 422, "provider_rejected", false, "refused the request"],
      [404, 404, "not_found", false, "found no such resource"],
      [409, 409, "conflict", false, "reported a conflict"],
      [400, 400, "invalid_request", false, "refused the input"],
      [500, 502, "provider_unavailable", true, "failed (HTTP 500)"],
      [300, 502, "provider_unavailable", true, "failed (HTTP 300)"],
    ];
    for (const [status, expected, code, retryable, said] of cases) {
      answer = { status, body: "{}" };
      const response = await t.call("opendata", "list_holidays", { year: 2026 });
      expect(response.status, String(status)).toBe(expected);
      expect(((await response.json()) as { error: unknown }).error).toEqual({
        code,
        message: `The opendata provider ${said}`,
        provider: "opendata",
        request_id: response.headers.get("x-request-id"),
        retryable,
      });
    }
  });
});

describe("a 401 to a call made without a connection", () => {
  it("is the provider refusing the gateway itself: 502, not the connection's credentials refused", async () => {
    answer = { status: 401, body: "{}" };
    for (const [provider, operation, input] of operations) {
      await expectProviderFailure(provider, operation, input, operationsRefusal(provider));
    }
    // A provider answering is working: a dozen such answers leave its circuit closed.
    for (let i = 0; i < 12; i++) {
      await holidaysFail(operationsRefusal("opendata"));
    }
  });
});

describe("a provider's error message that is not text", () => {
  it("leaves the answer's status and code as they are, without the message", async () => {
    const cases: [string, string, Record<string, unknown>, number, unknown, number, string][] = [
      ["opendata", "list_holidays", { year: 2026 }, 409, { message: { text: "taken" } }, 409, "reported a conflict"],
      ["opendata", "list_holidays", { year: 2026 }, 404, { message: 12 }, 404, "found no such resource"],
      ["catalog", "site_metadata", {}, 422, { error_description: ["no"] }, 422, "refused the request"],
      ["homegoods", "site_metadata", {}, 400, { errors: [{ message: true }] }, 400, "refused the input"],
    ];
    for (const [provider, operation, input, status, body, expected, said] of cases) {
      answer = { status, body: JSON.stringify(body) };
      const response = await t.call(provider, operation, input);
      expect(response.status).toBe(expected);
      expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
        `The ${provider} provider ${said}`,
      );
    }
  });

  it("on a 5xx counts toward the circuit breaker like any other", async () => {
    answer = { status: 503, body: JSON.stringify({ message: { text: "down" } }) };
    for (let call = 0; call < 10; call++) {
      await holidaysFail("The opendata provider failed (HTTP 503)");
    }
    const paused = await t.call("opendata", "list_holidays", { year: 2026 });
    expect(paused.status).toBe(502);
    expect(paused.headers.get("retry-after")).toBe("5");
  });
});

describe("a 429's Retry-After", () => {
  it("is passed on as seconds, from delay-seconds or an HTTP-date, and left out when empty", async () => {
    const retryAfter = async (value: string) => {
      answer = { status: 429, body: "{}", headers: { "retry-after": value } };
      const response = await t.call("opendata", "list_holidays", { year: 2026 });
      expect(response.status).toBe(502);
      return response.headers.get("retry-after");
    };
    expect(await retryAfter("7")).toBe("7");
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    expect(Number(await retryAfter(inAMinute))).toBeGreaterThanOrEqual(58);
    expect(Number(await retryAfter(inAMinute))).toBeLessThanOrEqual(61);
    expect(await retryAfter("")).toBeNull();
    // RFC 850's and asctime's forms of a date are HTTP-dates too; anything else is not one, however Date.parse reads it.
    const inAMinuteRfc850 = inAMinute.replace(/^(\w{3}), (\d{2}) (\w{3}) \d{2}(\d{2})/, (_, day: string, d, m, y) => {
      const days: Record<string, string> = { Mon: "Monday", Tue: "Tuesday", Wed: "Wednesday", Thu: "Thursday" };
      return `${days[day] ?? { Fri: "Friday", Sat: "Saturday", Sun: "Sunday" }[day]}, ${d}-${m}-${y}`;
    });
    expect(Number(await retryAfter(inAMinuteRfc850))).toBeGreaterThanOrEqual(58);
    for (const garbage of ["soon 2099", "12/31/2099", "-5", "1.5"]) expect(await retryAfter(garbage)).toBeNull();
    // A wait of more than a day is passed on as a day.
    expect(await retryAfter("99999999999999999999999")).toBe("86400");
    expect(await retryAfter(new Date(Date.now() + 7 * 86_400_000).toUTCString())).toBe("86400");
  });
});

describe("a provider's refusal under an Idempotency-Key", () => {
  it("is stored and replayed, a 400 as any other status: the call reached the provider", async () => {
    for (const [status, expected] of [
      [400, 400],
      [422, 422],
    ] as const) {
      answer = { status, body: JSON.stringify({ message: `refused ${status}` }) };
      const headers = { "idempotency-key": `provider-refusal-${status}` };
      const first = await t.call("opendata", "list_holidays", { year: 2026 }, headers);
      expect(first.status).toBe(expected);
      const firstBody = await first.text();
      answer = { status: 200, body: JSON.stringify({ year: 2026, results: [] }) };
      const repeat = await t.call("opendata", "list_holidays", { year: 2026 }, headers);
      expect(repeat.status).toBe(expected);
      expect(repeat.headers.get("idempotent-replayed")).toBe("true");
      expect(await repeat.text()).toBe(firstBody);
    }
  });

  it("is not stored when the gateway refused the input before calling the provider", async () => {
    answer = { status: 200, body: JSON.stringify({ year: 2026, results: [] }) };
    const headers = { "idempotency-key": "gateway-refusal-1" };
    expect((await t.call("opendata", "list_holidays", { year: 1999 }, headers)).status).toBe(400);
    const corrected = await t.call("opendata", "list_holidays", { year: 1999 }, headers);
    expect(corrected.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("answers not of the upstream's schema", () => {
  it("count toward the circuit breaker, as any failing answer does: after ten, calls are paused", async () => {
    answer = { status: 200, body: JSON.stringify({ count: 1, page: 1, pageCount: 1, items: [{}] }) };
    for (let call = 0; call < 10; call++) {
      await expectProviderFailure(
        "catalog",
        "search_products",
        { query: "米" },
        "The catalog provider answered in a shape the gateway cannot read",
      );
    }
    const paused = await t.call("catalog", "search_products", { query: "米" });
    await expectPaused(paused);
  });

  it("and so does a 204 to a call that expects an answer", async () => {
    answer = { status: 204, body: "" };
    for (let call = 0; call < 10; call++) {
      await expectProviderFailure(
        "catalog",
        "site_metadata",
        {},
        "The catalog provider answered in a shape the gateway cannot read",
      );
    }
    await expectPaused(await t.call("catalog", "site_metadata", {}));
  });
});

describe("the circuit breaker", () => {
  it("opens when more than half of at least ten calls failed, exactly half leaving it closed, for every operation", async () => {
    const holidays = () => t.call("opendata", "list_holidays", { year: 2026 });
    answer = { status: 200, body: JSON.stringify({ year: 2026, results: [] }) };
    for (let call = 0; call < 5; call++) expect((await holidays()).status).toBe(200);
    answer = { status: 503, body: "{}" };
    for (let call = 0; call < 5; call++) {
      await holidaysFail("The opendata provider failed (HTTP 503)");
    }
    // Five of ten: the eleventh call still reaches the provider, and its failure (six of eleven) opens the circuit.
    await holidaysFail("The opendata provider failed (HTTP 503)");
    answer = { status: 200, body: JSON.stringify({ year: 2026, results: [] }) };
    await expectPaused(await holidays(), "opendata");
    await expectPaused(await t.call("opendata", "lookup_postal_code", { postal_code: "100-0001" }), "opendata");
  });
});

async function expectPaused(paused: Response, provider = "catalog") {
  expect(paused.status).toBe(502);
  expect(paused.headers.get("retry-after")).toBe("5");
  expect(((await paused.json()) as { error: Record<string, unknown> }).error).toEqual({
    code: "provider_unavailable",
    message: `The ${provider} provider is failing; calls are paused for a few seconds`,
    provider,
    request_id: paused.headers.get("x-request-id"),
    retryable: true,
  });
}
