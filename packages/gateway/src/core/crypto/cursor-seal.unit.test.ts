// The cursor seal: what one node seals, any node with the same master key opens, for the same scope only; the sealed
// cursor shows nothing of the inside; any change to it, another scope or another key, and it does not open.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CursorSeal } from "./cursor-seal.ts";

const masterKey = randomBytes(32);
const scope = "default\nplatform:list_connections";
const inner = Buffer.from('[1795713059755,"conn_4aqr9BJ7cXtze0yPnzVkWg"]').toString("base64url");

describe("CursorSeal", () => {
  it("during a rotation, opens what a previous master key sealed, and seals under the current one", () => {
    const next = randomBytes(32);
    const sealedBefore = new CursorSeal(masterKey).seal(scope, inner);
    const rotated = new CursorSeal(next, [randomBytes(32), masterKey]);
    expect(rotated.open(scope, sealedBefore)).toBe(inner);
    expect(rotated.open("another\nplatform:list_connections", sealedBefore)).toBeUndefined();
    const sealedAfter = rotated.seal(scope, inner);
    expect(new CursorSeal(next).open(scope, sealedAfter)).toBe(inner);
    expect(new CursorSeal(masterKey).open(scope, sealedAfter)).toBeUndefined();
  });

  it("opens on another node with the same master key, for the same scope", () => {
    const sealed = new CursorSeal(masterKey).seal(scope, inner);
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(new CursorSeal(Buffer.from(masterKey)).open(scope, sealed)).toBe(inner);
  });

  it("shows nothing of the inside, and differs each time", () => {
    const seal = new CursorSeal(masterKey);
    const sealed = seal.seal(scope, inner);
    expect(sealed).not.toContain(inner.slice(0, 8));
    expect(Buffer.from(sealed, "base64url").toString("latin1")).not.toContain("conn_");
    expect(seal.seal(scope, inner)).not.toBe(sealed);
  });

  it("does not open for another scope, another key, or any change", () => {
    const seal = new CursorSeal(masterKey);
    const sealed = seal.seal(scope, inner);
    const bytes = Buffer.from(sealed, "base64url");
    const flipped = (index: number) => {
      const copy = Buffer.from(bytes);
      copy[index] = (copy[index] ?? 0) ^ 1;
      return copy.toString("base64url");
    };
    for (const [label, candidate, inScope] of [
      ["another operation", sealed, "default\nplatform:list_events"],
      ["another account", sealed, "acme\nplatform:list_connections"],
      ["a changed IV", flipped(0), scope],
      ["a changed inside", flipped(20), scope],
      ["a changed tag", flipped(bytes.length - 1), scope],
      ["a shortened one", bytes.subarray(0, bytes.length - 1).toString("base64url"), scope],
      ["the inside alone", inner, scope],
      ["nothing but IV and tag", bytes.subarray(0, 28).toString("base64url"), scope],
      ["other characters", `${sealed}é`, scope],
      ["empty", "", scope],
    ] as const) {
      expect(seal.open(inScope, candidate), label).toBeUndefined();
    }
    expect(new CursorSeal(randomBytes(32)).open(scope, sealed)).toBeUndefined();
  });
});
