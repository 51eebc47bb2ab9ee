// The committed operations.generated.ts must be what the generator makes of the gateway's registry today: a provider
// or operation added, renamed or reshaped without `npm run generate -w @provider-gateway/sdk` fails here.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Registry } from "../../gateway/src/providers/registry.ts";
import { generatedFile, generateOperationsSource } from "../scripts/generate.ts";
import { operationTable } from "../src/operations.generated.ts";

describe("operations.generated.ts", () => {
  it("is up to date with the gateway's registry (regenerated in memory and compared)", () => {
    const committed = readFileSync(generatedFile, "utf8");
    const fresh = generateOperationsSource();
    if (committed !== fresh) {
      expect.fail("packages/sdk/src/operations.generated.ts is stale: run npm run generate -w @provider-gateway/sdk");
    }
  });

  it("has one entry per operation of the registry, with its auth mode and read-only flag", () => {
    const registry = new Registry();
    const table = operationTable as Record<string, Record<string, { auth: string; readOnly: boolean }>>;
    const expected = registry.all().map(({ provider, operation }) => [provider.id, operation.id]);
    const listed = Object.entries(table).flatMap(([provider, ops]) => Object.keys(ops).map((op) => [provider, op]));
    expect(listed).toEqual(expected);
    for (const { provider, operation } of registry.all()) {
      expect(table[provider.id]?.[operation.id]).toMatchObject({ auth: operation.auth, readOnly: operation.readOnly });
    }
  });
});
