// Password hashing with scrypt (node:crypto): a random salt per password, parameters stored with the hash so they
// can be raised later without invalidating existing hashes, and a timing-safe comparison.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { invalidRequest } from "../errors.ts";

const defaults = { logN: 15, r: 8, p: 1 };
const keyLength = 32;
const maxmem = 128 * 1024 * 1024;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, keyLength, { N: 2 ** logN, r, p, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const { logN, r, p } = defaults;
  const salt = randomBytes(16);
  const key = await derive(password, salt, logN, r, p);
  return `scrypt$${logN}$${r}$${p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !logN || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), Number(logN), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// Verifying against this when the email is unknown keeps the answer's timing from telling which emails exist.
let decoy: Promise<string> | undefined;
export async function verifyDecoy(password: string): Promise<false> {
  decoy ??= hashPassword(randomBytes(16).toString("hex"));
  await verifyPassword(password, await decoy);
  return false;
}

export const minPasswordLength = 10;
/** Far more than a passphrase needs, and far less than the sign-in form's body limit (1 MiB), so it can be typed. */
export const maxPasswordLength = 1024;

/**
 * A console password's rule: from `minPasswordLength` to `maxPasswordLength` characters (code points, so that five
 * emoji are five), not all of them spaces. Throws the 400 that says so.
 */
export function checkPassword(password: string): void {
  const length = [...password].length;
  if (length < minPasswordLength) {
    throw invalidRequest(`The password must have at least ${minPasswordLength} characters`);
  }
  if (length > maxPasswordLength) {
    throw invalidRequest(`The password must have at most ${maxPasswordLength} characters`);
  }
  if (password.trim() === "") throw invalidRequest("The password must not be only spaces");
}
