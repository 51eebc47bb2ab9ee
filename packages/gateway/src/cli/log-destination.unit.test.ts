// gateway serve's log destination: the lines of one turn of the event loop reach the file together, in order, when
// the turn ends; flushSync writes what is pending at once (shutdown). A pipe that is not read, or whose reader is
// gone, costs whole lines, counted, and never blocks the writer.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
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
    const destination = turnBatchedDestination({ fd });
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
    const destination = turnBatchedDestination({ fd });
    destination.write("a\n");
    destination.write("b\n");
    destination.flushSync();
    expect(fs.readFileSync(file, "utf8")).toBe("a\nb\n");
    await nextTurn();
    expect(fs.readFileSync(file, "utf8")).toBe("a\nb\n");
  });

  it("keeps a multi-byte line whole", async () => {
    const destination = turnBatchedDestination({ fd });
    const line = `${JSON.stringify({ msg: "新潟県産 コシヒカリ".repeat(2000) })}\n`;
    destination.write(line);
    destination.write("next\n");
    await nextTurn();
    expect(fs.readFileSync(file, "utf8")).toBe(`${line}next\n`);
  });
});

// A named pipe opened for reading and writing in this process: a real pipe that nobody reads until the test does.
function unreadPipe() {
  const fifo = path.join(dir, "out.fifo");
  execFileSync("mkfifo", [fifo]);
  const pipe = fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
  const chunk = Buffer.alloc(64 * 1024);
  return {
    fd: pipe,
    /** What the pipe holds now. */
    read(): string {
      let text = "";
      for (;;) {
        try {
          const n = fs.readSync(pipe, chunk);
          text += chunk.toString("utf8", 0, n);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EAGAIN") return text;
          throw error;
        }
      }
    },
    close: () => fs.closeSync(pipe),
  };
}

/** Reads the pipe, letting the destination's timers run, until `done` holds for what was read. */
async function readUntil(pipe: ReturnType<typeof unreadPipe>, done: (text: string) => boolean): Promise<string> {
  let text = pipe.read();
  while (!done(text)) {
    await sleep(5);
    text += pipe.read();
  }
  return text;
}

const line = (n: number) => `${JSON.stringify({ n, msg: "request completed", pad: "x".repeat(80) })}\n`;

describe("a reader that stops reading", () => {
  it("costs log lines past the buffer, counted, never a blocked writer; the rest arrive whole, then the count", async () => {
    const pipe = unreadPipe();
    let dropped = 0;
    const resumed: number[] = [];
    const destination = turnBatchedDestination({
      fd: pipe.fd,
      maxPendingBytes: 32 * 1024,
      onDrop: (lines) => {
        dropped += lines;
      },
      onResume: (lines) => resumed.push(lines),
    });
    // About 330 KB: the pipe (64 KiB on Linux) and the 32 KiB buffer hold a third of it.
    const total = 3_000;
    for (let n = 0; n < total; n++) {
      destination.write(line(n));
      if (n % 50 === 49) await nextTurn();
    }
    await nextTurn();
    expect(dropped).toBeGreaterThan(0);
    expect(resumed).toEqual([]);

    let text = await readUntil(pipe, () => resumed.length > 0);
    text += pipe.read();
    const received = text
      .trimEnd()
      .split("\n")
      .map((l) => (JSON.parse(l) as { n: number }).n);
    // The lines kept are the first ones, each whole and in order; every other line was counted once.
    expect(received).toEqual(Array.from({ length: total - dropped }, (_, n) => n));
    expect(resumed).toEqual([dropped]);

    // Read again, the destination writes at once.
    destination.write(line(total));
    await nextTurn();
    expect(pipe.read()).toBe(line(total));
    pipe.close();
  });

  it("finishes a line the pipe took only part of", async () => {
    const pipe = unreadPipe();
    let dropped = 0;
    const destination = turnBatchedDestination({
      fd: pipe.fd,
      onDrop: (lines) => {
        dropped += lines;
      },
    });
    const big = `${JSON.stringify({ msg: "x".repeat(200_000) })}\n`;
    destination.write(big);
    destination.write("after\n");
    await nextTurn();
    const text = await readUntil(pipe, (read) => read.endsWith("after\n"));
    expect(text).toBe(`${big}after\n`);
    expect(dropped).toBe(0);
    pipe.close();
  });

  it("gives a full pipe at most exitWaitMs at exit, and counts the lines that did not get through", async () => {
    const pipe = unreadPipe();
    let dropped = 0;
    const destination = turnBatchedDestination({
      fd: pipe.fd,
      exitWaitMs: 50,
      onDrop: (lines) => {
        dropped += lines;
      },
    });
    const total = 2_000;
    for (let n = 0; n < total; n++) destination.write(line(n));
    destination.flushSync();
    const text = pipe.read();
    const whole = text.split("\n").length - 1;
    expect(whole).toBeGreaterThan(0);
    expect(whole + dropped).toBe(total);
    pipe.close();
  });

  it("counts every line as dropped once the reader is gone, and goes on", async () => {
    const fifo = path.join(dir, "gone.fifo");
    execFileSync("mkfifo", [fifo]);
    const reader = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const writer = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    fs.closeSync(reader);
    let dropped = 0;
    const destination = turnBatchedDestination({
      fd: writer,
      onDrop: (lines) => {
        dropped += lines;
      },
    });
    destination.write(line(0));
    destination.write(line(1));
    await nextTurn();
    destination.write(line(2));
    destination.flushSync();
    expect(dropped).toBe(3);
    fs.closeSync(writer);
  });
});
