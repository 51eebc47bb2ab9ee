// Identifiers: random ones in their shape, and time-ordered ones in the same shape that sort by the time they carry.
import { describe, expect, it } from "vitest";
import { base62Pattern, newId, timeOrderedId } from "./ids.ts";

describe("identifiers", () => {
  it("newId: a prefix and 22 base62 characters, different every time", () => {
    const ids = Array.from({ length: 1000 }, () => newId("evt"));
    for (const id of ids) expect(id).toMatch(base62Pattern("evt", 22));
    expect(new Set(ids).size).toBe(1000);
  });

  it("timeOrderedId: the same shape, the time in its first 8 characters, random after them", () => {
    const now = Date.parse("2026-11-25T15:00:00.000Z");
    const ids = Array.from({ length: 1000 }, () => timeOrderedId("whd", now));
    for (const id of ids) expect(id).toMatch(base62Pattern("whd", 22));
    expect(new Set(ids).size).toBe(1000);
    expect(new Set(ids.map((id) => id.slice(4, 12))).size).toBe(1);
    // 0 is eight zeros; 62^8 - 1 milliseconds (year 8900) is eight of the last character.
    expect(timeOrderedId("x", 0).slice(2, 10)).toBe("00000000");
    expect(timeOrderedId("x", 62 ** 8 - 1).slice(2, 10)).toBe("zzzzzzzz");
    expect(timeOrderedId("x", 61).slice(2, 10)).toBe("0000000z");
    expect(timeOrderedId("x", 62).slice(2, 10)).toBe("00000010");
  });

  it("timeOrderedId: ids made in one millisecond sort in the order they were made", () => {
    const now = Date.parse("2026-11-25T15:00:00.000Z");
    const ids = Array.from({ length: 5000 }, () => timeOrderedId("evt", now));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(5000);
    // The next millisecond starts from a fresh random draw, and still sorts after.
    const later = timeOrderedId("evt", now + 1);
    expect(later > (ids.at(-1) as string)).toBe(true);
  });

  it("timeOrderedId: later ids sort after earlier ones, as strings", () => {
    const start = Date.parse("2026-01-01T00:00:00.000Z");
    const times = [0, 1, 61, 62, 3_843, 3_844, 86_400_000, 31_536_000_000].map((offset) => start + offset);
    const ids = times.map((time) => timeOrderedId("evt", time));
    expect([...ids].sort()).toEqual(ids);
  });
});
