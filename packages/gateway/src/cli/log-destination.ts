// Where `gateway serve` writes its log lines: standard output, one write per turn of the event loop. The lines logged
// during a turn (a request's line, and those of the requests answered in the same turn) are joined and handed to
// sonic-boom as one synchronous write when the turn ends (setImmediate). That is one system call per turn instead of
// one per line, nothing held across turns, and no trip through libuv's thread pool; sonic-boom's own buffering
// (`minLength`) appends each line to a growing string whose length it measures on every write, which flattens the whole
// buffer each time. A full pipe makes the write wait (sonic-boom retries EAGAIN), so a log reader that falls behind
// slows the gateway down rather than letting its memory grow.
import pino from "pino";

export interface LogDestination {
  write(line: string): boolean;
  /** Writes what is pending now (at exit). */
  flushSync(): void;
}

export function turnBatchedDestination(fd = 1): LogDestination {
  const out = pino.destination({ dest: fd, sync: true });
  let lines: string[] = [];
  const flush = () => {
    if (lines.length === 0) return;
    const text = lines.length === 1 ? (lines[0] as string) : lines.join("");
    lines = [];
    out.write(text);
  };
  return {
    write(line) {
      if (lines.push(line) === 1) setImmediate(flush);
      return true;
    },
    flushSync() {
      flush();
      out.flushSync();
    },
  };
}
