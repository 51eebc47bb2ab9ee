// Where `gateway serve` writes its log lines: standard output, one write per turn of the event loop. The lines logged
// during a turn (a request's line, and those of the requests answered in the same turn) are joined and written with
// one synchronous system call when the turn ends (setImmediate): one call per turn instead of one per line, nothing
// held across turns, no trip through libuv's thread pool.
//
// A reader that stops reading must not stop the gateway. When the pipe is full (EAGAIN, or a partial write) the rest
// waits in a backlog that is retried on a timer, and later turns queue behind it; past `maxPendingBytes` whole lines
// are dropped and counted, and once the backlog is written `onResume` learns how many were lost. A reader that is gone
// (EPIPE) loses every line, counted the same way. A blocking pipe would instead stop the whole process in write(2),
// so serve opens standard output non-blocking (nonBlockingStandardOutput).
import fs from "node:fs";

export interface LogDestination {
  write(line: string): boolean;
  /** Writes what is pending now (at exit), waiting for a full pipe at most `exitWaitMs`; the rest is dropped. */
  flushSync(): void;
}

export interface LogDestinationOptions {
  fd?: number;
  /** Bytes held while the reader does not take them; lines beyond are dropped. */
  maxPendingBytes?: number;
  /** How long flushSync waits for a full pipe. */
  exitWaitMs?: number;
  /** Lines dropped (a full backlog, a reader that is gone). */
  onDrop?(lines: number): void;
  /** The backlog is written again after `droppedLines` were dropped since it formed. */
  onResume?(droppedLines: number): void;
}

const retryStartMs = 5;
const retryMaxMs = 100;

export function turnBatchedDestination(options: LogDestinationOptions = {}): LogDestination {
  const { fd = 1, maxPendingBytes = 16 * 1024 * 1024, exitWaitMs = 2_000 } = options;
  let turn: string[] = [];
  /** Bytes not yet written, oldest first; the first may be the rest of a partial write. */
  const backlog: Buffer[] = [];
  let backlogBytes = 0;
  let droppedSinceStall = 0;
  let retry: NodeJS.Timeout | undefined;
  let retryDelay = retryStartMs;

  const drop = (lines: number) => {
    droppedSinceStall += lines;
    options.onDrop?.(lines);
  };

  /** Writes as much of `chunk` as the pipe takes; answers the unwritten rest, or undefined when all was written. */
  const writeSome = (chunk: string | Buffer): Buffer | undefined => {
    if (typeof chunk !== "string") {
      const written = fs.writeSync(fd, chunk);
      return written === chunk.length ? undefined : chunk.subarray(written);
    }
    const written = fs.writeSync(fd, chunk);
    return written === Buffer.byteLength(chunk) ? undefined : Buffer.from(chunk).subarray(written);
  };

  /** Writes the backlog in order; answers whether it is empty now. Throws what is not a full pipe. */
  const writeBacklog = (): boolean => {
    while (backlog.length > 0) {
      const chunk = backlog[0] as Buffer;
      let rest: Buffer | undefined;
      try {
        rest = writeSome(chunk);
      } catch (error) {
        if (isFullPipe(error)) return false;
        throw error;
      }
      backlogBytes -= chunk.length - (rest?.length ?? 0);
      if (rest) {
        backlog[0] = rest;
        return false;
      }
      backlog.shift();
    }
    return true;
  };

  const scheduleRetry = () => {
    if (retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      drainBacklog();
    }, retryDelay).unref();
    retryDelay = Math.min(retryDelay * 2, retryMaxMs);
  };

  const drainBacklog = () => {
    let empty: boolean;
    try {
      empty = writeBacklog();
    } catch {
      // The reader is gone: what waited is lost.
      empty = true;
      discardBacklog();
    }
    if (!empty) return scheduleRetry();
    retryDelay = retryStartMs;
    if (droppedSinceStall > 0) {
      const dropped = droppedSinceStall;
      droppedSinceStall = 0;
      options.onResume?.(dropped);
    }
  };

  const discardBacklog = () => {
    // Every line the backlog holds is lost, a partly written one included (its reader has only its beginning).
    const lines = backlog.reduce((sum, chunk) => sum + countLines(chunk), 0);
    backlog.length = 0;
    backlogBytes = 0;
    if (lines > 0) drop(lines);
  };

  const flushTurn = () => {
    if (turn.length === 0) return;
    const lines = turn;
    turn = [];
    const text = lines.length === 1 ? (lines[0] as string) : lines.join("");
    if (backlog.length > 0) return queue(text, lines.length);
    try {
      const rest = writeSome(text);
      if (rest) queue(rest, 0);
    } catch (error) {
      if (isFullPipe(error)) queue(text, lines.length);
      else drop(lines.length);
    }
  };

  /** Puts unwritten bytes behind the backlog, or drops their `lines` when it is full. */
  const queue = (chunk: string | Buffer, lines: number) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    // The rest of a partial write (lines = 0) is always kept: it completes a line already begun.
    if (lines > 0 && backlogBytes + bytes.length > maxPendingBytes) return drop(lines);
    backlog.push(bytes);
    backlogBytes += bytes.length;
    scheduleRetry();
  };

  return {
    write(line) {
      if (turn.push(line) === 1) setImmediate(flushTurn);
      return true;
    },
    flushSync() {
      flushTurn();
      clearTimeout(retry);
      retry = undefined;
      const deadline = performance.now() + exitWaitMs;
      const pause = new Int32Array(new SharedArrayBuffer(4));
      for (;;) {
        try {
          if (writeBacklog()) return;
        } catch {
          return discardBacklog();
        }
        const left = deadline - performance.now();
        if (left <= 0) return discardBacklog();
        Atomics.wait(pause, 0, 0, Math.min(10, left));
      }
    },
  };
}

/**
 * Opens standard output as Node does for process.stdout, which sets a pipe or socket non-blocking (libuv), so that a
 * full pipe answers EAGAIN instead of stopping the process in write(2); answers its descriptor.
 */
export function nonBlockingStandardOutput(): number {
  void process.stdout;
  return 1;
}

const isFullPipe = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "EAGAIN" || code === "EWOULDBLOCK";
};

function countLines(chunk: Buffer): number {
  let lines = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  return lines;
}
