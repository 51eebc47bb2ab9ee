// The cursor seal: what one node seals, any node with the same master key opens, for the same scope only; any change
// to the cursor or its seal, another scope or another key, and it does not open.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CursorSeal } from "./cursor-seal.ts";

const masterKey = randomBytes(32);
const scope = "default\ncatalog:search_products";
const inner = Buffer.from('{"p":2}').toString("base64url");

describe("CursorSeal", () => {
  it("opens on another node with the same master key, for the same scope", () => {
    const sealed = new CursorSeal(masterKey).seal(scope, inner);
    expect(sealed).toMatch(/^eyJwIjoyfQ\.[A-Za-z0-9_-]{22}$/);
    expect(new CursorSeal(Buffer.from(masterKey)).open(scope, sealed)).toBe(inner);
  });

  it("does not open for another scope, another key, or any change", () => {
    const seal = new CursorSeal(masterKey);
    const sealed = seal.seal(scope, inner);
    const mac = sealed.slice(sealed.lastIndexOf(".") + 1);
    const flipped = `${mac.slice(0, -1)}${mac.endsWith("A") ? "B" : "A"}`;
    for (const [label, candidate, inScope] of [
      ["another operation", sealed, "default\ncatalog:search_stores"],
      ["another account", sealed, "acme\ncatalog:search_products"],
      ["another page inside", `${Buffer.from('{"p":1000000000}').toString("base64url")}.${mac}`, scope],
      ["a changed seal", `${inner}.${flipped}`, scope],
      ["a shortened seal", sealed.slice(0, -1), scope],
      ["no seal", inner, scope],
      ["only a seal", `.${mac}`, scope],
      ["a seal of other characters", `${inner}.${"é".repeat(22)}`, scope],
    ] as const) {
      expect(seal.open(inScope, candidate), label).toBeUndefined();
    }
    expect(new CursorSeal(randomBytes(32)).open(scope, sealed)).toBeUndefined();
  });
});
