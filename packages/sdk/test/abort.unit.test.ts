// One caller's AbortSignal shared by many calls in flight: each attempt and each wait between retries follows it, yet
// the signal holds one listener of the SDK's, so Node never warns of a listener leak; an attempt that is over no
// longer follows it.
import { afterEach, expect, it } from "vitest";
import { abortableSleep, attemptSignal } from "../src/client/abort.ts";

const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(warning.name);
process.on("warning", onWarning);
afterEach(() => {
  warnings.length = 0;
});

it("follows one shared signal in 20 attempts and 20 waits, without a listener-leak warning", async () => {
  const caller = new AbortController();
  const attempts = Array.from({ length: 20 }, () => attemptSignal(60_000, caller.signal));
  const sleeps = Array.from({ length: 20 }, () =>
    abortableSleep(60_000, caller.signal).catch((error: unknown) => error),
  );
  const reason = new Error("the caller gave up");
  caller.abort(reason);
  expect(attempts.map((attempt) => [attempt.signal.aborted, attempt.signal.reason, attempt.timedOut])).toEqual(
    Array.from({ length: 20 }, () => [true, reason, false]),
  );
  expect(await Promise.all(sleeps)).toEqual(Array.from({ length: 20 }, () => reason));
  for (const attempt of attempts) attempt.done();
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings).toEqual([]);
  process.off("warning", onWarning);
});

it("stops following the signal once the attempt is done, and a wait once it has ended", async () => {
  const caller = new AbortController();
  const attempt = attemptSignal(60_000, caller.signal);
  attempt.done();
  await abortableSleep(1, caller.signal);
  caller.abort(new Error("later"));
  expect(attempt.signal.aborted).toBe(false);
});
