// The gateway's log kept in memory, for tests that assert on its lines: a stream to hand to the logger
// (`logger: { level, stream: log.stream }`), and what was written to it, as text, as lines, or as parsed JSON lines.
import { Writable } from "node:stream";

/** One line of the log, parsed: pino's fields, and whatever the line was logged with. */
export interface LogLine {
  level: number;
  msg: string;
  err?: { type?: string; message: string; stack?: string };
  [field: string]: unknown;
}

export interface LogCapture {
  /** The stream to write the log to. */
  stream: Writable;
  /** Everything written so far, as written: for checking that a secret appears nowhere in the log. */
  text(): string;
  /** The non-empty lines written so far, as written (the last one possibly unfinished). */
  rawLines(): string[];
  /** The lines written so far, each parsed: a line that is not JSON fails the test. */
  lines(): LogLine[];
}

export function captureLog(): LogCapture {
  let text = "";
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  const rawLines = () => text.split("\n").filter(Boolean);
  const parse = (line: string): LogLine => {
    try {
      return JSON.parse(line) as LogLine;
    } catch {
      throw new Error(`A log line is not JSON: ${line}`);
    }
  };
  return { stream, text: () => text, rawLines, lines: () => rawLines().map(parse) };
}
