// Connection handles across a master-key rotation: a handle derived from a previous key still opens, for its account
// only; new handles come from the current key.
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { ConnectionHandles } from "./connection-handles.ts";

const id = "conn_4aqr9BJ7cXtze0yPnzVkWg";

it("opens a handle a previous master key made, for its account only, and makes new ones under the current key", () => {
  const old = randomBytes(32);
  const next = randomBytes(32);
  const before = new ConnectionHandles(old).seal("acme", id);
  const rotated = new ConnectionHandles(next, [randomBytes(32), old]);
  expect(rotated.open("acme", before)).toBe(id);
  expect(() => rotated.open("other", before)).toThrow("No such connection");
  const after = rotated.seal("acme", id);
  expect(after).toBe(new ConnectionHandles(next).seal("acme", id));
  expect(after).not.toBe(before);
  expect(() => new ConnectionHandles(old).open("acme", after)).toThrow("No such connection");
  expect(() => new ConnectionHandles(next).open("acme", before)).toThrow("No such connection");
});
