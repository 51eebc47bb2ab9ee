// Provider settings that name no provider, or one that takes no such setting, stop the start with the variable's
// name and the providers that take it; the right names pass.
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { providers } from "./providers/registry.ts";
import { misnamedProviderSetting } from "./upstreams.ts";

const check = (env: Record<string, string>) => misnamedProviderSetting(providers, loadConfig(env));

describe("provider settings", () => {
  it("pass when every one names a provider that takes it", () => {
    expect(
      check({
        GATEWAY_UPSTREAM_CATALOG_URL: "http://127.0.0.1:9001",
        GATEWAY_HOOK_SECRET_DINING: "whsec_dining",
        GATEWAY_OAUTH_SHOPPING_CLIENT_ID: "client",
        GATEWAY_UPSTREAM_TIMEOUT_MS: "5000",
      }),
    ).toBeUndefined();
  });

  it("name the variable of an id that is no provider, and the providers that take it", () => {
    expect(check({ GATEWAY_UPSTREAM_CATALOGUE_URL: "http://127.0.0.1:9001" })).toBe(
      "GATEWAY_UPSTREAM_CATALOGUE_URL: there is no provider catalogue; the providers with an upstream are " +
        "catalog, homegoods, opendata, shopping, dining, delivery, rides, payments",
    );
    expect(check({ GATEWAY_HOOK_SECRET_DINNING: "whsec_x" })).toBe(
      "GATEWAY_HOOK_SECRET_DINNING: there is no provider dinning; the providers with inbound hooks are " +
        "dining, delivery, rides, payments",
    );
  });

  it("name a provider that takes no such setting", () => {
    expect(check({ GATEWAY_HOOK_SECRET_CATALOG: "whsec_x" })).toBe(
      "GATEWAY_HOOK_SECRET_CATALOG: the provider catalog has no inbound hooks; the providers with inbound hooks are " +
        "dining, delivery, rides, payments",
    );
    expect(check({ GATEWAY_OAUTH_OPENDATA_CLIENT_ID: "client" })).toBe(
      "GATEWAY_OAUTH_OPENDATA_*: the provider opendata has no OAuth connections; the providers with OAuth connections " +
        "are shopping, dining, delivery, rides, payments",
    );
    expect(check({ GATEWAY_UPSTREAM_PLATFORM_URL: "http://127.0.0.1:9001" })).toBe(
      "GATEWAY_UPSTREAM_PLATFORM_URL: the provider platform has no upstream; the providers with an upstream are " +
        "catalog, homegoods, opendata, shopping, dining, delivery, rides, payments",
    );
  });
});
