// The global fetch, recording every attempt the client makes: what it sent and what came back. Real HTTP throughout;
// the record is how a test sees the headers of each retry (the same Idempotency-Key, the replay marker).
import type { FetchLike } from "../../src/client/types.ts";

export interface RecordedAttempt {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** Status of the answer; undefined when the attempt got none (network error, timeout, abort). */
  status: number | undefined;
  responseHeaders: Record<string, string>;
}

export function recordingFetch(): { fetch: FetchLike; attempts: RecordedAttempt[] } {
  const attempts: RecordedAttempt[] = [];
  const fetchImpl: FetchLike = async (input, init) => {
    const attempt: RecordedAttempt = {
      method: init.method ?? "GET",
      url: input,
      headers: headerRecord(new Headers(init.headers)),
      body: typeof init.body === "string" ? init.body : undefined,
      status: undefined,
      responseHeaders: {},
    };
    attempts.push(attempt);
    const response = await fetch(input, init);
    attempt.status = response.status;
    attempt.responseHeaders = headerRecord(response.headers);
    return response;
  };
  return { fetch: fetchImpl, attempts };
}

/** A sleep that records the waits and returns at once, for tests of the retry schedule; honours abort. */
export function recordingSleep(): { sleep: (ms: number, signal?: AbortSignal) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason;
      waits.push(ms);
    },
  };
}

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}
