// The caller's strings that travel as header values (API key, User-Agent suffix, connection id, Idempotency-Key),
// checked before anything is sent. fetch refuses a character it cannot put in a header (above U+00FF, a control
// character) with a TypeError that would otherwise pass for a network failure and be retried; the gateway accepts
// printable ASCII only, so anything else can never succeed.

const printableAscii = /^[\x20-\x7e]*$/;

/** The value itself when it is a non-blank string of printable ASCII (U+0020–U+007E); a TypeError otherwise. */
export function checkedHeaderValue(name: string, value: string): string {
  if (typeof value !== "string" || value.trim() === "" || !printableAscii.test(value)) {
    throw new TypeError(`${name} must be a non-blank string of printable ASCII characters (U+0020 to U+007E)`);
  }
  return value;
}

/**
 * An Idempotency-Key the gateway reads exactly as given: 1 to 255 printable ASCII characters, neither beginning with a
 * double quote (the gateway reads such a value as a quoted string) nor beginning or ending with a space (which the
 * header loses). The key is sent as it is.
 */
export function checkedIdempotencyKey(key: string): string {
  checkedHeaderValue("idempotencyKey", key);
  if (key.length > 255) throw new TypeError("idempotencyKey must be at most 255 characters, for example a UUID");
  if (key.startsWith('"') || key.trim() !== key) {
    throw new TypeError(
      "idempotencyKey must not begin with a double quote nor begin or end with a space: the gateway would read another key",
    );
  }
  return key;
}
