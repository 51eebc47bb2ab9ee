// The serving lock: held by one process's gateway at a time, released at close, and the file it locks stays empty.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { lockServing } from "./serving-lock.ts";

it("refuses a second holder while held, takes it again once released, and leaves serve.lock empty", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "serving-lock-"));
  const held = lockServing(dataDir);
  expect(() => lockServing(dataDir)).toThrow(`Another gateway is serving the SQLite store in ${dataDir}`);
  held.release();
  lockServing(dataDir).release();
  expect(fs.readdirSync(dataDir)).toEqual(["serve.lock"]);
  expect(fs.statSync(path.join(dataDir, "serve.lock")).size).toBe(0);
});
