import { describe, expect, it } from "vitest";
import { readDateTime } from "./date-time.ts";

const iso = (text: string) => new Date(readDateTime(text)).toISOString();

describe("readDateTime", () => {
  it("reads RFC 3339 with its offset", () => {
    expect(iso("2027-01-01T10:00:00Z")).toBe("2027-01-01T10:00:00.000Z");
    expect(iso("2027-01-01T10:00:00+09:00")).toBe("2027-01-01T01:00:00.000Z");
    expect(iso("2027-01-01T10:00:00-11:00")).toBe("2027-01-01T21:00:00.000Z");
    expect(iso("2028-02-29T00:00:00+14:00")).toBe("2028-02-28T10:00:00.000Z");
    expect(iso("2027-01-01T10:00:00.123456Z")).toBe("2027-01-01T10:00:00.123Z");
    expect(iso("2027-01-01T10:00:00.5-00:00")).toBe("2027-01-01T10:00:00.500Z");
  });

  it("reads the other forms the date-time format accepts as their offset says", () => {
    expect(iso("2027-01-01T10:00:00+09")).toBe("2027-01-01T01:00:00.000Z");
    expect(iso("2027-01-01t10:00:00-11")).toBe("2027-01-01T21:00:00.000Z");
    expect(iso("2027-01-01T10:00:00+0545")).toBe("2027-01-01T04:15:00.000Z");
    expect(iso("2027-01-01 10:00:00z")).toBe("2027-01-01T10:00:00.000Z");
    // The format takes any white space between date and time (its \s), a tab as a space.
    expect(iso("2027-01-01\t10:00:00Z")).toBe("2027-01-01T10:00:00.000Z");
    expect(iso("2027-01-01\u00a010:00:00+09")).toBe("2027-01-01T01:00:00.000Z");
  });

  it("keeps a year below 100 as written", () => {
    expect(iso("0049-06-15 12:30:15Z")).toBe("0049-06-15T12:30:15.000Z");
    expect(iso("0000-01-01T00:00:00Z")).toBe("0000-01-01T00:00:00.000Z");
    expect(iso("9999-12-31T23:59:59Z")).toBe("9999-12-31T23:59:59.000Z");
  });

  it("names no instant for a leap second, a day the month lacks, or another form", () => {
    for (const text of [
      "2030-12-31T23:59:60Z",
      "2027-02-29T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2027-01-01T24:00:00Z",
      "2027-01-01T10:00:00",
      "2027-01-01T10:00Z",
      "2027-01-01T10:00:00+24:00",
      "Fri, 01 Jan 2027 10:00:00 GMT",
    ]) {
      expect(readDateTime(text), text).toBeNaN();
    }
  });
});
