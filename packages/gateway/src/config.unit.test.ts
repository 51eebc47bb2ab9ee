// loadConfig: what each variable accepts, and that anything else stops the start with an error naming the variable.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { maxTimerMs } from "./config-values.ts";

it.each([
  [undefined, false],
  ["", false],
  ["false", false],
  ["0", false],
  ["true", true],
  ["2", 2],
  ["127.0.0.1", ["127.0.0.1"]],
  [" 10.0.0.0/8, 192.168.1.5 ,", ["10.0.0.0/8", "192.168.1.5"]],
  ["fd00::/8,::1", ["fd00::/8", "::1"]],
])("GATEWAY_TRUST_PROXY=%j reads as %j", (value, expected) => {
  const env: Record<string, string> = value === undefined ? {} : { GATEWAY_TRUST_PROXY: value };
  expect(loadConfig(env).trustProxy).toEqual(expected);
});

it("GATEWAY_TRUST_PROXY takes at most 100 hops", () => {
  expect(loadConfig({ GATEWAY_TRUST_PROXY: "100" }).trustProxy).toBe(100);
  for (const value of ["101", "99999999999999999999999"]) {
    expect(() => loadConfig({ GATEWAY_TRUST_PROXY: value })).toThrow(
      new Error(`GATEWAY_TRUST_PROXY takes at most 100 hops (or true for any), got "${value}"`),
    );
  }
});

it.each(["banana", "10.0.0.0/33", "10.0.0.1,nope", "::1/129", "10.0.0.0/8/8"])(
  "GATEWAY_TRUST_PROXY=%j is refused",
  (value) => {
    expect(() => loadConfig({ GATEWAY_TRUST_PROXY: value })).toThrow(
      /^GATEWAY_TRUST_PROXY must be true, a hop count, or comma-separated IP addresses and CIDR ranges; ".+" is none of these$/,
    );
  },
);

describe("GATEWAY_ENV", () => {
  it.each([
    [{}, "development"],
    [{ GATEWAY_ENV: "production" }, "production"],
    [{ GATEWAY_ENV: "test" }, "test"],
    [{ NODE_ENV: "production" }, "production"],
    [{ GATEWAY_ENV: "", NODE_ENV: "production" }, "production"],
    [{ GATEWAY_ENV: "development", NODE_ENV: "staging" }, "development"],
  ])("%j runs in %s", (env, expected) => {
    expect(loadConfig(env).env).toBe(expected);
  });

  it("refuses a value it does not know rather than run in development", () => {
    expect(() => loadConfig({ GATEWAY_ENV: "prod" })).toThrow(
      'GATEWAY_ENV must be development, production or test, got "prod"',
    );
    expect(() => loadConfig({ NODE_ENV: "staging" })).toThrow(
      'NODE_ENV must be development, production or test (or set GATEWAY_ENV, which comes first), got "staging"',
    );
  });
});

describe("switches", () => {
  const names = [
    "GATEWAY_NO_SANDBOXES",
    "GATEWAY_NO_WEBHOOK_WORKER",
    "GATEWAY_NO_RATE_LIMITS",
    "GATEWAY_NO_PREPARED_STATEMENTS",
  ] as const;
  it.each(["1", "true", "yes", "TRUE", "Yes"])("%j turns each on", (value) => {
    const config = loadConfig({
      ...Object.fromEntries(names.map((n) => [n, value])),
      GATEWAY_WEBHOOK_ALLOW_PRIVATE: value,
      GATEWAY_ANSWER_HALF_CLOSED: value,
    });
    expect([config.startSandboxes, config.webhookWorker, config.rateLimitsEnabled, config.preparedStatements]).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(config.webhookAllowPrivate).toBe(true);
    expect(config.answerHalfClosed).toBe(true);
  });

  it.each(["", "0", "false", "no", "NO"])("%j leaves each off", (value) => {
    const config = loadConfig({
      ...Object.fromEntries(names.map((n) => [n, value])),
      GATEWAY_WEBHOOK_ALLOW_PRIVATE: value,
      GATEWAY_ANSWER_HALF_CLOSED: value,
    });
    expect([config.startSandboxes, config.webhookWorker, config.rateLimitsEnabled, config.preparedStatements]).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(config.webhookAllowPrivate).toBe(false);
    expect(config.answerHalfClosed).toBe(false);
  });

  it.each([...names, "GATEWAY_WEBHOOK_ALLOW_PRIVATE", "GATEWAY_ANSWER_HALF_CLOSED"])("%s=on is refused", (name) => {
    expect(() => loadConfig({ [name]: "on" })).toThrow(
      `${name} is a switch: on with 1, true or yes, off with 0, false, no or empty; got "on"`,
    );
  });
});

describe("URLs", () => {
  it("GATEWAY_REDIS_URL takes redis:// and rediss://, and refuses other schemes without repeating the value", () => {
    expect(loadConfig({ GATEWAY_REDIS_URL: "redis://127.0.0.1:6379/0" }).redisUrl).toBe("redis://127.0.0.1:6379/0");
    expect(loadConfig({ GATEWAY_REDIS_URL: "rediss://:pw@cache.internal" }).redisUrl).toBe(
      "rediss://:pw@cache.internal",
    );
    for (const value of ["http://x", "redis:/x", "/tmp/redis.sock", "x"]) {
      expect(() => loadConfig({ GATEWAY_REDIS_URL: value })).toThrow(
        "GATEWAY_REDIS_URL must be a redis:// or rediss:// URL (leave it unset for limits per node)",
      );
    }
  });

  it("GATEWAY_PUBLIC_URL and GATEWAY_UPSTREAM_<ID>_URL take absolute http(s) URLs, without the trailing slash", () => {
    const config = loadConfig({
      GATEWAY_PUBLIC_URL: "https://gateway.example/",
      GATEWAY_UPSTREAM_CATALOG_URL: "http://127.0.0.1:9100/",
    });
    expect(config.publicUrl).toBe("https://gateway.example");
    expect(config.upstreamUrls.catalog).toBe("http://127.0.0.1:9100");
    expect(loadConfig({ PORT: "9000", GATEWAY_PUBLIC_URL: "" }).publicUrl).toBe("http://localhost:9000");
  });

  it.each(["notaurl", "ftp://x", "http:x", "https://", "http://x/?a=1", "http://x/#top", "http://x?", "http://x#"])(
    "%j is refused",
    (value) => {
      expect(() => loadConfig({ GATEWAY_PUBLIC_URL: value })).toThrow(
        `GATEWAY_PUBLIC_URL must be an absolute http:// or https:// URL without query or fragment, got "${value}"`,
      );
      expect(() => loadConfig({ GATEWAY_UPSTREAM_CATALOG_URL: value })).toThrow(
        `GATEWAY_UPSTREAM_CATALOG_URL must be an absolute http:// or https:// URL without query or fragment, got "${value}"`,
      );
    },
  );

  it("refuses credentials in any of them without repeating the value; an OAuth issuer is such a URL too", () => {
    for (const name of ["GATEWAY_PUBLIC_URL", "GATEWAY_UPSTREAM_CATALOG_URL", "GATEWAY_OAUTH_SHOPPING_ISSUER"]) {
      for (const value of ["http://user:topsecret@x.example", "https://topsecret@x.example/path"]) {
        expect(() => loadConfig({ [name]: value })).toThrow(
          new Error(`${name} must not carry credentials (user:password@); the value is not repeated here`),
        );
      }
    }
    // A URL that does not parse at all (a port past 65535, a bracket left open) is not repeated with its password.
    for (const [value, shown] of [
      ["http://alice:S3cretPW@gw.example.com:99999", "http://…@gw.example.com:99999"],
      ["https://bob:S3cretPW@[::1", "https://…@[::1"],
    ]) {
      expect(() => loadConfig({ GATEWAY_PUBLIC_URL: value })).toThrow(
        new Error(
          `GATEWAY_PUBLIC_URL must be an absolute http:// or https:// URL without query or fragment, got "${shown}"`,
        ),
      );
    }
    expect(() => loadConfig({ GATEWAY_OAUTH_SHOPPING_ISSUER: "ftp://x" })).toThrow(
      'GATEWAY_OAUTH_SHOPPING_ISSUER must be an absolute http:// or https:// URL without query or fragment, got "ftp://x"',
    );
    // Kept as written: it must equal the issuer the server's metadata names.
    expect(loadConfig({ GATEWAY_OAUTH_SHOPPING_ISSUER: "https://auth.example/" }).oauthClients.shopping).toEqual({
      issuer: "https://auth.example/",
    });
  });

  it.each([
    ["GATEWAY_UPSTREAM_catalog_URL", "GATEWAY_UPSTREAM_<PROVIDER>_URL"],
    ["GATEWAY_UPSTREAM_CATALOG", "GATEWAY_UPSTREAM_<PROVIDER>_URL"],
    ["GATEWAY_HOOK_SECRET_dining", "GATEWAY_HOOK_SECRET_<PROVIDER>"],
    ["GATEWAY_OAUTH_DINING_CLIENTID", "GATEWAY_OAUTH_<PROVIDER>_CLIENT_ID, _CLIENT_SECRET or _ISSUER"],
  ])("refuses %s, a provider setting not of its form", (name, written) => {
    expect(() => loadConfig({ [name]: "x" })).toThrow(
      `${name} is not a setting the gateway takes: write ${written}, the provider id in capitals`,
    );
    expect(loadConfig({ GATEWAY_UPSTREAM_TIMEOUT_MS: "5" }).upstreamTimeoutMs).toBe(5);
  });

  it("an empty GATEWAY_DATA_DIR is unset: ./data, not the working directory", () => {
    expect(loadConfig({ GATEWAY_DATA_DIR: "" }).dataDir).toBe(path.resolve("data"));
  });

  it("an empty GATEWAY_REDIS_KEY_PREFIX is unset: gateway:, not keys without a prefix", () => {
    expect(loadConfig({ GATEWAY_REDIS_KEY_PREFIX: "" }).redisKeyPrefix).toBe("gateway:");
    expect(loadConfig({ GATEWAY_REDIS_KEY_PREFIX: "staging:" }).redisKeyPrefix).toBe("staging:");
  });
});

describe("numbers", () => {
  it.each(["0x10", "1e3", "-1", "1.5", " 5", "ten"])("%j is not a number of milliseconds", (value) => {
    expect(() => loadConfig({ GATEWAY_KEY_CACHE_TTL_MS: value })).toThrow(
      `GATEWAY_KEY_CACHE_TTL_MS must be a number of milliseconds from 0 to 2147483647, got "${value}"`,
    );
    expect(() => loadConfig({ GATEWAY_LOG_BUFFER_BYTES: value })).toThrow(
      `GATEWAY_LOG_BUFFER_BYTES must be a non-negative integer, got "${value}"`,
    );
  });

  it("gives an answer's client 60 s to take some of it by default, as nginx's send_timeout", () => {
    expect(loadConfig({}).sendTimeoutMs).toBe(60_000);
    expect(loadConfig({ GATEWAY_SEND_TIMEOUT_MS: "120000" }).sendTimeoutMs).toBe(120_000);
  });

  it("bounds every duration by the longest timer Node can wait", () => {
    expect(maxTimerMs).toBe(2 ** 31 - 1);
    expect(loadConfig({ GATEWAY_WEBHOOK_POLL_INTERVAL_MS: "2147483647" }).webhookPollIntervalMs).toBe(maxTimerMs);
    for (const name of [
      "GATEWAY_UPSTREAM_TIMEOUT_MS",
      "GATEWAY_WEBHOOK_TIMEOUT_MS",
      "GATEWAY_WEBHOOK_POLL_INTERVAL_MS",
      "GATEWAY_WEBHOOK_LEASE_MS",
      "GATEWAY_REDIS_COMMAND_TIMEOUT_MS",
      "GATEWAY_DATABASE_TIMEOUT_MS",
      "GATEWAY_SHUTDOWN_TIMEOUT_MS",
      "GATEWAY_REQUEST_TIMEOUT_MS",
      "GATEWAY_KEEP_ALIVE_TIMEOUT_MS",
      "GATEWAY_SEND_TIMEOUT_MS",
    ]) {
      expect(() => loadConfig({ [name]: "3000000000" })).toThrow(
        `${name} must be a number of milliseconds from 1 to 2147483647, got "3000000000"`,
      );
      // A timeout, interval or lease of 0 fails every call, spins, or hands a delivery to every node.
      expect(() => loadConfig({ [name]: "0" })).toThrow(`${name} must be a number of milliseconds from 1 to`);
    }
    expect(() => loadConfig({ GATEWAY_IDEMPOTENCY_WAIT_MS: "2147483648" })).toThrow(
      'GATEWAY_IDEMPOTENCY_WAIT_MS must be a number of milliseconds from 0 to 2147483647, got "2147483648"',
    );
  });

  it("refuses a webhook lease that ends before its attempt's timeout", () => {
    expect(() => loadConfig({ GATEWAY_WEBHOOK_TIMEOUT_MS: "5000", GATEWAY_WEBHOOK_LEASE_MS: "5000" })).toThrow(
      "GATEWAY_WEBHOOK_LEASE_MS (5000) must be longer than GATEWAY_WEBHOOK_TIMEOUT_MS (5000): a delivery's lease must outlast its attempt",
    );
    expect(() => loadConfig({ GATEWAY_WEBHOOK_LEASE_MS: "2000" })).toThrow(
      "GATEWAY_WEBHOOK_LEASE_MS (2000) must be longer than GATEWAY_WEBHOOK_TIMEOUT_MS (10000)",
    );
    const config = loadConfig({ GATEWAY_WEBHOOK_TIMEOUT_MS: "1500", GATEWAY_WEBHOOK_LEASE_MS: "2000" });
    expect([config.webhookTimeoutMs, config.webhookLeaseMs]).toEqual([1500, 2000]);
  });

  it("takes 0 where it means something: no key cache, no waiting for a repeated Idempotency-Key, no shutdown delay", () => {
    const config = loadConfig({
      GATEWAY_KEY_CACHE_TTL_MS: "0",
      GATEWAY_IDEMPOTENCY_WAIT_MS: "0",
      GATEWAY_SHUTDOWN_DELAY_MS: "0",
    });
    expect([config.keyCacheTtlMs, config.idempotencyWaitMs, config.shutdownDelayMs]).toEqual([0, 0, 0]);
    expect(loadConfig({}).shutdownDelayMs).toBe(0);
    expect(loadConfig({ GATEWAY_SHUTDOWN_DELAY_MS: "10000" }).shutdownDelayMs).toBe(10_000);
    expect(() => loadConfig({ GATEWAY_SHUTDOWN_DELAY_MS: "-1" })).toThrow(
      'GATEWAY_SHUTDOWN_DELAY_MS must be a number of milliseconds from 0 to 2147483647, got "-1"',
    );
  });

  it("keeps the default rate limit within a key's own bounds, and concurrency at 1 or more", () => {
    expect(loadConfig({ GATEWAY_RATE_LIMIT_PER_MINUTE: "1000000" }).rateLimitPerMinute).toBe(1_000_000);
    expect(() => loadConfig({ GATEWAY_RATE_LIMIT_PER_MINUTE: "1000001" })).toThrow(
      'GATEWAY_RATE_LIMIT_PER_MINUTE must be an integer from 1 to 1000000, got "1000001"',
    );
    expect(() => loadConfig({ GATEWAY_RATE_LIMIT_BURST: "0" })).toThrow(
      'GATEWAY_RATE_LIMIT_BURST must be an integer from 1 to 1000000, got "0"',
    );
    expect(() => loadConfig({ GATEWAY_WEBHOOK_CONCURRENCY: "0" })).toThrow(
      'GATEWAY_WEBHOOK_CONCURRENCY must be a positive integer, got "0"',
    );
  });

  it("gives an endpoint a quarter of the webhook concurrency by default, from 1 up to the whole concurrency", () => {
    expect(loadConfig({}).webhookEndpointConcurrency).toBe(16);
    expect(loadConfig({ GATEWAY_WEBHOOK_CONCURRENCY: "10" }).webhookEndpointConcurrency).toBe(2);
    expect(loadConfig({ GATEWAY_WEBHOOK_CONCURRENCY: "3" }).webhookEndpointConcurrency).toBe(1);
    const whole = { GATEWAY_WEBHOOK_CONCURRENCY: "8", GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY: "8" };
    expect(loadConfig(whole).webhookEndpointConcurrency).toBe(8);
    for (const value of ["0", "9"]) {
      expect(() =>
        loadConfig({ GATEWAY_WEBHOOK_CONCURRENCY: "8", GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY: value }),
      ).toThrow(`GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY must be an integer from 1 to 8, got "${value}"`);
    }
  });

  it.each(["70000", "0x10", "abc"])("PORT=%j is refused", (value) => {
    expect(() => loadConfig({ PORT: value })).toThrow(`PORT must be a port number (0 to 65535), got "${value}"`);
  });
});

it.each(["verbose", "INFO", "warning"])("GATEWAY_LOG_LEVEL=%j is refused with the levels it takes", (value) => {
  expect(() => loadConfig({ GATEWAY_LOG_LEVEL: value })).toThrow(
    `GATEWAY_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${value}"`,
  );
  expect(loadConfig({ GATEWAY_LOG_LEVEL: "debug" }).logLevel).toBe("debug");
});

describe("HOST", () => {
  it.each(["127.0.0.1", "0.0.0.0", "::", "::1", "localhost", "gateway-1.internal"])("%j is taken", (value) => {
    expect(loadConfig({ HOST: value }).host).toBe(value);
  });

  it.each(["999.1.1.1", "1.2.3", "[::1]", "-bad.example", "two words", "a_b"])("%j is refused", (value) => {
    expect(() => loadConfig({ HOST: value })).toThrow(
      `HOST must be an IP address or a host name to listen on, got "${value}"`,
    );
  });
});
