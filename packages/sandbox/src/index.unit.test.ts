// The package surface: the registry of sandboxes, building without listening, and starting on a free port.
import { describe, expect, it } from "vitest";
import {
  buildSandbox,
  isSandboxProviderId,
  type SandboxProviderId,
  sandboxProviderIds,
  startSandbox,
} from "./index.ts";
import { fetchJson } from "./shared/test-client.ts";

describe("sandbox registry", () => {
  it("lists the catalog, homegoods and opendata sandboxes", () => {
    expect(sandboxProviderIds).toEqual(expect.arrayContaining(["catalog", "homegoods", "opendata"]));
    expect(new Set(sandboxProviderIds).size).toBe(sandboxProviderIds.length);
    expect(isSandboxProviderId("catalog")).toBe(true);
    expect(isSandboxProviderId("toString")).toBe(false);
  });

  it("builds a sandbox without listening", async () => {
    const app = buildSandbox("opendata");
    const response = await app.inject({ url: "/_sandbox/health" });
    expect(response.json()).toEqual({ provider: "opendata", status: "ok" });
    expect(app.server.listening).toBe(false);
    await app.close();
  });

  it("refuses an unknown provider id", () => {
    expect(() => buildSandbox("nope" as SandboxProviderId)).toThrow(/Unknown sandbox provider/);
  });

  it.each(sandboxProviderIds)("starts %s on a free loopback port and closes it", async (providerId) => {
    const sandbox = await startSandbox(providerId);
    expect(sandbox.providerId).toBe(providerId);
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetchJson(`${sandbox.url}/_sandbox/health`);
    expect(health.body).toEqual({ provider: providerId, status: "ok" });
    await sandbox.close();
    await expect(fetch(`${sandbox.url}/_sandbox/health`)).rejects.toThrow();
  });
});
