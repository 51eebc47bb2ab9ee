// docs/providers.md lists every provider and operation of the registry with its auth mode, and every resource
// alias: its generated part must be what the registry gives today.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { providersDoc, regeneratedPage } from "../../scripts/providers-doc.ts";

describe("docs/providers.md", () => {
  it("is up to date with the registry (node --import tsx packages/gateway/scripts/providers-doc.ts)", () => {
    const page = readFileSync(providersDoc, "utf8");
    if (regeneratedPage(page) !== page) {
      expect.fail("docs/providers.md is stale: run node --import tsx packages/gateway/scripts/providers-doc.ts");
    }
  });
});
