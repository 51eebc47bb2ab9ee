// Headers that must be sent once. Node keeps the first Authorization or Content-Type of several and drops the rest,
// and joins repeats of most other names with ", ", so a repeat can only be seen in the raw headers.
import { isHeaderName } from "../core/header-names.ts";

/** Whether a header appears more than once among the raw headers (names and values alternate). */
export function sentMoreThanOnce(rawHeaders: readonly string[], name: string): boolean {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (isHeaderName(rawHeaders[i] as string, name) && ++seen > 1) return true;
  }
  return false;
}
