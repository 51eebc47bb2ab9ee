// The helpers under the signature check: the constant-time comparison above all.
import { describe, expect, it } from "vitest";
import { concatBytes, timingSafeEqual, toHex } from "./bytes.ts";

describe("byte helpers", () => {
  it("timingSafeEqual: equal only for the same string, false at once for different lengths", () => {
    expect(timingSafeEqual("abc123", "abc123")).toBe(true);
    expect(timingSafeEqual("", "")).toBe(true);
    expect(timingSafeEqual("abc123", "abc124")).toBe(false);
    expect(timingSafeEqual("bbc123", "abc123")).toBe(false);
    expect(timingSafeEqual("abc", "abc1")).toBe(false);
    expect(timingSafeEqual("abc1", "abc")).toBe(false);
  });

  it("toHex and concatBytes", () => {
    expect(toHex(new Uint8Array([0, 1, 15, 16, 255]))).toBe("00010f10ff");
    expect([...concatBytes(new Uint8Array([1]), new Uint8Array([2, 3]))]).toEqual([1, 2, 3]);
  });
});
