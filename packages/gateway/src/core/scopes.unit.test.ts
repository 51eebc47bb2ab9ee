// The scope grammar, the check of a scope's provider and operation, and the two ways scopes cover one another.
import { describe, expect, it } from "vitest";
import { GatewayError } from "./errors.ts";
import { parseScopes, scopesAllow, scopesWithin, unknownScopeTargets } from "./scopes.ts";

const targets = [
  { id: "catalog", operations: [{ id: "search_products" }, { id: "product_detail" }] },
  { id: "catalog2", operations: [{ id: "search_products" }] },
  { id: "platform", operations: [{ id: "create_api_key" }] },
];

function problems(input: readonly string[] | string): unknown {
  try {
    parseScopes(input, targets);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return { message: (error as GatewayError).message, details: (error as GatewayError).details };
  }
  return expect.unreachable("the scopes should have been refused");
}

describe("parseScopes", () => {
  it("takes *, a provider and a provider's operation, once each, in order", () => {
    expect(parseScopes(["catalog:search_products", "*", "platform", "catalog:search_products"], targets)).toEqual([
      "catalog:search_products",
      "*",
      "platform",
    ]);
  });

  it("splits a string on commas and whitespace", () => {
    expect(parseScopes("catalog, platform\tcatalog:product_detail\n", targets)).toEqual([
      "catalog",
      "platform",
      "catalog:product_detail",
    ]);
  });

  it("refuses an empty list", () => {
    expect(problems([])).toEqual({
      message: "At least one scope is required",
      details: [
        { path: "/scopes", message: 'no scope was given: use "*", "<provider_id>" or "<provider_id>:<operation_id>"' },
      ],
    });
    expect(problems(" , ")).toMatchObject({ message: "At least one scope is required" });
  });

  it("refuses what the grammar does not allow, each by its place in the list", () => {
    const malformed = ["catalog:", "Catalog", "1catalog", "_catalog", "catalog:*", "catalog:search_products:x", "*x"];
    expect(problems(["catalog", ...malformed])).toEqual({
      message: "Invalid scopes",
      details: malformed.map((scope, index) => ({
        path: `/scopes/${index + 1}`,
        message: `"${scope}" is not a scope: use "*", "<provider_id>" or "<provider_id>:<operation_id>"`,
      })),
    });
  });

  it("refuses a provider or an operation this gateway does not have", () => {
    expect(problems(["catalgo", "catalog:product_detial", "catalog2:product_detail"])).toEqual({
      message: "Invalid scopes",
      details: [
        { path: "/scopes/0", message: '"catalgo": there is no provider "catalgo"; GET /v1/operations lists them' },
        {
          path: "/scopes/1",
          message: '"catalog:product_detial": the catalog provider has no operation "product_detial"',
        },
        {
          path: "/scopes/2",
          message: '"catalog2:product_detail": the catalog2 provider has no operation "product_detail"',
        },
      ],
    });
  });

  it("leaves malformed values to the schema when only the targets are checked", () => {
    expect(unknownScopeTargets(["Catalog", 3, "catalgo", "catalog"], targets)).toEqual([
      { path: "/scopes/2", message: '"catalgo": there is no provider "catalgo"; GET /v1/operations lists them' },
    ]);
  });
});

describe("scopesAllow", () => {
  it("allows by *, by the provider, or by the exact operation, and nothing else", () => {
    expect(scopesAllow(["*"], "catalog", "product_detail")).toBe(true);
    expect(scopesAllow(["catalog"], "catalog", "product_detail")).toBe(true);
    expect(scopesAllow(["catalog:product_detail"], "catalog", "product_detail")).toBe(true);
    expect(scopesAllow(["catalog:search_products"], "catalog", "product_detail")).toBe(false);
    expect(scopesAllow(["catalog2"], "catalog", "product_detail")).toBe(false);
    expect(scopesAllow(["catalog"], "catalog2", "search_products")).toBe(false);
    expect(scopesAllow(["catalog:product"], "catalog", "product_detail")).toBe(false);
    expect(scopesAllow([], "catalog", "product_detail")).toBe(false);
  });
});

describe("scopesWithin", () => {
  it("takes every subset of what is granted, and nothing wider", () => {
    expect(scopesWithin(["*"], ["*"])).toBe(true);
    expect(scopesWithin(["catalog", "platform:create_api_key"], ["*"])).toBe(true);
    expect(scopesWithin(["catalog:product_detail", "catalog"], ["catalog"])).toBe(true);
    expect(scopesWithin(["catalog:product_detail"], ["catalog:product_detail"])).toBe(true);
    expect(scopesWithin(["*"], ["catalog", "platform"])).toBe(false);
    expect(scopesWithin(["catalog"], ["catalog:product_detail"])).toBe(false);
    expect(scopesWithin(["catalog:search_products"], ["catalog:product_detail"])).toBe(false);
    expect(scopesWithin(["catalog2"], ["catalog"])).toBe(false);
    expect(scopesWithin(["catalog", "platform"], ["catalog"])).toBe(false);
  });
});
