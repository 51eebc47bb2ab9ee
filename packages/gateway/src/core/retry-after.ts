// Retry-After as a provider or an authorization server sends it (RFC 9110 §10.2.3), read strictly: delay-seconds or
// an HTTP-date, nothing else.

const day = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const month = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const time = "\\d{2}:\\d{2}:\\d{2}";
/** The three forms of an HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, RFC 850's, and asctime's (which names no zone). */
const httpDate = new RegExp(
  `^(?:${day}, \\d{2} ${month} \\d{4} ${time} GMT|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \\d{2}-${month}-\\d{2} ${time} GMT|${day} ${month} (?: \\d|\\d{2}) ${time} \\d{4})$`,
);
/** The longest wait passed on: a provider asking for more is asked again tomorrow. */
export const maxRetryAfterSeconds = 86_400;

/**
 * A Retry-After header in whole seconds, from 1 to a day: delay-seconds, or an HTTP-date (RFC 9110 §10.2.3) counted
 * from `now`; undefined when it is absent, empty or neither (`Date.parse` alone would read "soon 2099" as a date).
 */
export function retryAfterSeconds(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  let seconds: number;
  if (/^\d+$/.test(text)) seconds = Number(text);
  else if (httpDate.test(text)) seconds = (Date.parse(text.endsWith("GMT") ? text : `${text} GMT`) - now) / 1000;
  else return undefined;
  return Number.isFinite(seconds) ? Math.min(maxRetryAfterSeconds, Math.max(1, Math.ceil(seconds))) : undefined;
}
