// The instant a `date-time` input names, read as JSON Schema's format reads it (RFC 3339, with the `t`, any white
// space between date and time, and the `+hh` or `+hhmm` offset forms the format also accepts). Date.parse is not that
// reader: it refuses "…T10:00:00+09", and its fallback for other forms reads the year 0049 of "0049-06-15 12:30:15Z"
// as 2049.

const dateTime =
  /^(\d{4})-(\d{2})-(\d{2})[Tt\s](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/** Milliseconds since the epoch, or NaN for what names no instant: another form, a leap second (:60), 24:00. */
export function readDateTime(text: string): number {
  const match = dateTime.exec(text);
  if (!match) return Number.NaN;
  const [, year, month, day, hour, minute, second, fraction = "", zulu, sign, offsetHours, offsetMinutes = "00"] =
    match;
  const fields = [month, day, hour, minute, second, offsetHours ?? "00", offsetMinutes].map(Number) as number[];
  const [mo, d, h, mi, s, oh, om] = fields as [number, number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59 || oh > 23 || om > 59) return Number.NaN;
  const at = new Date(0);
  // setUTCFullYear, unlike Date.UTC, takes the years 0 to 99 as they are.
  at.setUTCFullYear(Number(year), mo - 1, d);
  if (at.getUTCMonth() !== mo - 1) return Number.NaN;
  at.setUTCHours(h, mi, s, Number(fraction.slice(0, 3).padEnd(3, "0")));
  const offset = zulu === undefined ? (sign === "-" ? -1 : 1) * (oh * 60 + om) * 60_000 : 0;
  return at.getTime() - offset;
}
