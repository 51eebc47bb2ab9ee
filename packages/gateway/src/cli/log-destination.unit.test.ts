// gateway serve's log destination: the lines of one turn of the event loop reach the file together, in order, when
// the turn ends; flushSync writes what is pending at once (shutdown).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { turnBatchedDestination } from "./log-destination.ts";

let dir: string;
let file: string;
let fd: number;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "log-destination-"));
  file = path.join(dir, "out.log");
  fd = fs.openSync(file, "w");
});
afterEach(() => {
  fs.closeSync(fd);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the turn-batched log destination", () => {
  it("writes the lines of a turn together, in order, once the turn ends", async () => {
    const destination = turnBatchedDestination(fd);
    destination.write('{"n":1}\n');
    destination.write('{"n":2}\n');
    destination.write('{"n":3}\n');
    expect(fs.readFileSync(file, "utf8")).toBe("");
    await nextTurn();
    expect(fs.readFileSync(file, "utf8")).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    destination.write('{"n":4}\n');
    await nextTurn();
    expect(fs.readFileSync(file, "utf8")).toBe('{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}\n');
  });

  it("writes what is pending at once on flushSync, and nothing twice", async () => {
    const destination = turnBatchedDestination(fd);
    destination.write("a\n");
    destination.write("b\n");
    destination.flushSync();
    expect(fs.readFileSync(file, "utf8")).toBe("a\nb\n");
    await nextTurn();
    expect(fs.readFileSync(file, "utf8")).toBe("a\nb\n");
  });

  it("keeps a multi-byte line whole", async () => {
    const destination = turnBatchedDestination(fd);
    const line = `${JSON.stringify({ msg: "新潟県産 コシヒカリ".repeat(2000) })}\n`;
    destination.write(line);
    destination.write("next\n");
    await nextTurn();
    expect(fs.readFileSync(file, "utf8")).toBe(`${line}next\n`);
  });
});
