// Headers that must be sent once. Node keeps the first Authorization or Content-Type of several and drops the rest,
// and joins repeats of most other names with ", ", so a repeat can only be seen in the raw headers.
/** Whether a header appears more than once among the raw headers (names and values alternate). */
export function sentMoreThanOnce(rawHeaders: readonly string[], name: string): boolean {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const candidate = rawHeaders[i] as string;
    if (candidate.length === name.length && candidate.toLowerCase() === name && ++seen > 1) return true;
  }
  return false;
}
