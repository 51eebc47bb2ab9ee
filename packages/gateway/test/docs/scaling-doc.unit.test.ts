// docs/scaling.md lists every cache a node keeps, for an operator sizing its memory: each source file that builds a
// BoundedMap is named in its "Memory of a node" table, so that a new cache cannot go unlisted.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const src = path.resolve(import.meta.dirname, "../../src");
const page = readFileSync(path.resolve(import.meta.dirname, "../../../../docs/scaling.md"), "utf8");

it("names in its memory table every source file that keeps a BoundedMap", () => {
  const section = page.slice(page.indexOf("### Memory of a node"));
  const builders = readdirSync(src, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .filter((file) => readFileSync(path.join(src, file), "utf8").includes("new BoundedMap"))
    .map((file) => file.split(path.sep).join("/"));
  expect(builders.length).toBeGreaterThanOrEqual(6);
  expect(builders.filter((file) => !section.includes(`\`${file}\``))).toEqual([]);
});
