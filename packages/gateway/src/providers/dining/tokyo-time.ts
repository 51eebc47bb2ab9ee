// Tokyo time for the dining provider: venue times (a table's start, a cancellation deadline) are given with the
// +09:00 offset, as the venue's own clock reads them; record timestamps (created, updated) are UTC, as elsewhere.

const offsetMs = 9 * 3600 * 1000;

/** "YYYY-MM-DD" of the instant in Tokyo. */
export const tokyoDate = (ms: number): string => new Date(ms + offsetMs).toISOString().slice(0, 10);

/** An instant as ISO 8601 with the +09:00 offset, seconds precision: "2027-12-24T20:00:00+09:00". */
export const tokyoIso = (ms: number): string => `${new Date(ms + offsetMs).toISOString().slice(0, 19)}+09:00`;

/** Any ISO 8601 instant from the upstream, rewritten with the +09:00 offset. */
export const inTokyo = (iso: string): string => tokyoIso(Date.parse(iso));

/** Any ISO 8601 instant from the upstream, rewritten in UTC with milliseconds. */
export const inUtc = (iso: string): string => new Date(Date.parse(iso)).toISOString();

export const nullableUtc = (iso: string | null): string | null => (iso === null ? null : inUtc(iso));
