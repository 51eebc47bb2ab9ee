import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { gatewayVersion } from "./version.ts";

it("is the version package.json states", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "../package.json"), "utf8"));
  expect(gatewayVersion).toBe(manifest.version);
});
