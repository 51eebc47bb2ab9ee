// Text a caller chose, made safe to show: the characters that would act rather than show, as \u escapes.
import { describe, expect, it } from "vitest";
import { printable } from "./printable.ts";

describe("printable", () => {
  it("escapes every bidirectional control, the Arabic letter mark among them", () => {
    const bidiControls = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069";
    expect(printable(`a${bidiControls}b`)).toBe(
      "a\\u061c\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069b",
    );
  });

  it("escapes controls and zero-width characters, and leaves other text as it is", () => {
    expect(printable("x\u0000\u001b[2J\u0085\u200b\u2028\ufeffy")).toBe(
      "x\\u0000\\u001b[2J\\u0085\\u200b\\u2028\\ufeffy",
    );
    expect(printable("注文_42 ok-ä")).toBe("注文_42 ok-ä");
  });
});
