// Test projects: the whole suite on the embedded store (SQLite), and the store-backed suites again on PostgreSQL.
import { defineConfig } from "vitest/config";

const postgresUrl = process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

// Workspace packages resolve to their TypeScript sources (the SDK's exports carry this condition besides dist).
const conditions = ["@provider-gateway/source"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "sqlite",
          include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts", "examples/**/*.test.ts"],
          exclude: ["**/*.pg.test.ts", "**/*.redis.test.ts", "**/node_modules/**"],
          env: { GATEWAY_TEST_STORE: "sqlite" },
        },
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: ["packages/gateway/src/**/*.test.ts", "packages/gateway/test/**/*.test.ts"],
          exclude: ["**/*.unit.test.ts", "**/*.browser.test.ts", "**/*.redis.test.ts", "**/node_modules/**"],
          env: { GATEWAY_TEST_STORE: "postgres", GATEWAY_TEST_POSTGRES_URL: postgresUrl },
        },
      },
      {
        extends: true,
        test: {
          name: "redis",
          include: ["packages/*/src/**/*.redis.test.ts", "packages/*/test/**/*.redis.test.ts"],
          env: { GATEWAY_TEST_STORE: "postgres", GATEWAY_TEST_POSTGRES_URL: postgresUrl },
        },
      },
    ],
  },
});
