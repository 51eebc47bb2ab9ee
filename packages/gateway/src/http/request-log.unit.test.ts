// The request line built by template is the line pino would write; loggers it cannot match get the fields through info.
import pino from "pino";
import { expect, it, vi } from "vitest";
import { captureLog } from "../../test/log-capture.ts";
import { type RequestLine, requestLogWriter } from "./request-log.ts";

function capture(options: pino.LoggerOptions = {}) {
  const log = captureLog();
  return { logger: pino({ level: "info", ...options }, log.stream), log };
}

const line: RequestLine = {
  request_id: "req_0001",
  method: "POST",
  path: '/connect/:token "odd\\path" \u0001 東京',
  status: 422,
  latency_ms: 12.34,
  account: "default",
  key_id: "key_abc",
  provider: "dining",
  operation: "cancel_reservation",
};

const withoutTime = (text: string) => text.replace(/,"time":\d+/, "");

it("writes exactly pino's line for the same fields, escaping what needs it", async () => {
  const fast = capture();
  const reference = capture();
  const info = vi.spyOn(fast.logger, "info");
  const write = vi.spyOn(fast.log.stream, "write");
  requestLogWriter(fast.logger)(line);
  expect(info).not.toHaveBeenCalled();
  reference.logger.info(line, "request");
  await new Promise((resolve) => setImmediate(resolve));
  expect(write).toHaveBeenCalledOnce();
  expect(fast.log.rawLines()).toHaveLength(1);
  expect(withoutTime(fast.log.text())).toBe(withoutTime(reference.log.text()));
  expect(fast.log.lines()[0]).toMatchObject({ level: 30, msg: "request", ...line });
});

it("leaves out absent fields and respects the level", async () => {
  const quiet = capture({ level: "warn" });
  requestLogWriter(quiet.logger)(line);
  const { logger, log } = capture();
  requestLogWriter(logger)({ request_id: "req_2", method: "GET", path: "/x", status: 401, latency_ms: 0.5 });
  await new Promise((resolve) => setImmediate(resolve));
  expect(quiet.log.text()).toBe("");
  expect(Object.keys(log.lines()[0] ?? {})).toEqual([
    "level",
    "time",
    "pid",
    "hostname",
    "request_id",
    "method",
    "path",
    "status",
    "latency_ms",
    "msg",
  ]);
});

it("goes through info for a logger whose line the template cannot give (a mixin, redaction)", async () => {
  const mixed = capture({ mixin: () => ({ node: "n1" }) });
  const redacted = capture({ redact: ["path"] });
  const info = vi.spyOn(mixed.logger, "info");
  requestLogWriter(mixed.logger)(line);
  expect(info).toHaveBeenCalledOnce();
  requestLogWriter(redacted.logger)(line);
  await new Promise((resolve) => setImmediate(resolve));
  expect(mixed.log.lines()[0]).toMatchObject({ node: "n1", request_id: "req_0001" });
  expect(redacted.log.lines()[0]).toMatchObject({ path: "[Redacted]", request_id: "req_0001" });
});
