// One upstream call through undici's dispatch API: the status, the Retry-After header and the whole body as text.
// Cheaper per call than `request()`, which wraps every answer in a Readable stream that the client reads at once
// anyway; errors (refused, connect timeouts) are undici's own, as with `request()`.
//
// The deadline of a call (connect, send, headers and body together) is kept here rather than by undici's
// headersTimeout/bodyTimeout: those arm a timer object per request that outlives the request by up to a second, and
// at thousands of calls a second these timers are promoted to the old generation and make the garbage collector's
// work grow with the load. One sweep every 100 ms aborts every call past its deadline instead.
//
// The calls in flight are a list linked through the calls themselves, each unlinked (and its links cleared) when it
// ends. A Set did the same job, but under load it kept whole requests alive past their end: each call reaches its
// request's promise chain (and so its body, its parsed answer, its Fastify request), and with a Set about 1 MB of
// these was promoted to the old generation at every scavenge, against 20 KB with the list (`--trace-gc-nvp`,
// bench/operations) — three times the scavenge pause and a full collection every second or two.
import type { Dispatcher } from "undici";
import { isHeaderName } from "../core/header-names.ts";

export interface UpstreamAnswer {
  statusCode: number;
  retryAfter: string | undefined;
  text: string;
}

/** The call ran past its deadline. `sent` is false when no byte of it reached the provider. */
export class UpstreamTimeoutError extends Error {
  readonly code = "GATEWAY_UPSTREAM_TIMEOUT";
  constructor(
    readonly timeoutMs: number,
    readonly sent: boolean,
  ) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/** The answer's body grew past the limit the caller set: the call is given up, the rest of it unread. */
export class UpstreamTooLargeError extends Error {
  readonly code = "GATEWAY_UPSTREAM_TOO_LARGE";
  constructor(readonly maxBytes: number) {
    super(`answer body over ${maxBytes} bytes`);
  }
}

interface InFlight {
  deadline: number;
  timeoutMs: number;
  /** Set once the request is on a socket; until then the call waits in the pool's queue. */
  abort: ((reason: Error) => void) | undefined;
  fail: (reason: Error) => void;
  expired: boolean;
  previous: InFlight | undefined;
  next: InFlight | undefined;
}

const inFlight: { first: InFlight | undefined; last: InFlight | undefined } = { first: undefined, last: undefined };
const sweepEveryMs = 100;
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  const now = performance.now();
  for (let call = inFlight.first; call; ) {
    const next = call.next;
    if (call.deadline <= now) {
      call.expired = true;
      untrack(call);
      // A call still queued fails now, unsent; the pool drops it when a socket frees (see onConnect).
      if (call.abort) call.abort(new UpstreamTimeoutError(call.timeoutMs, true));
      else call.fail(new UpstreamTimeoutError(call.timeoutMs, false));
    }
    call = next;
  }
  if (!inFlight.first && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

function track(call: InFlight): void {
  call.previous = inFlight.last;
  if (inFlight.last) inFlight.last.next = call;
  else inFlight.first = call;
  inFlight.last = call;
  if (!sweeper) {
    sweeper = setInterval(sweep, sweepEveryMs);
    sweeper.unref();
  }
}

/** Idempotent: a call may end more than once (expired by the sweep, then its abort reported as an error). */
function untrack(call: InFlight): void {
  if (call.previous === undefined && inFlight.first !== call) return;
  if (call.previous) call.previous.next = call.next;
  else inFlight.first = call.next;
  if (call.next) call.next.previous = call.previous;
  else inFlight.last = call.previous;
  call.previous = undefined;
  call.next = undefined;
}

export function callUpstream(
  dispatcher: Dispatcher,
  options: {
    method: string;
    path: string;
    headers: Record<string, string>;
    body: string | null;
    timeoutMs: number;
    /** The largest answer body taken; a longer one fails the call with UpstreamTooLargeError. */
    maxBytes: number;
  },
): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    let retryAfter: string | undefined;
    const chunks: Buffer[] = [];
    let length = 0;
    const call: InFlight = {
      deadline: performance.now() + options.timeoutMs,
      timeoutMs: options.timeoutMs,
      abort: undefined,
      fail: reject,
      expired: false,
      previous: undefined,
      next: undefined,
    };
    track(call);
    const handler: Dispatcher.DispatchHandler = {
      onConnect(abort) {
        // Called when the request is about to be written on a connected socket. A call that waited in the pool's
        // queue past its deadline is given up before anything is sent.
        if (call.expired || call.deadline <= performance.now()) {
          untrack(call);
          abort(new UpstreamTimeoutError(options.timeoutMs, false));
          return;
        }
        call.abort = abort;
      },
      onHeaders(status, rawHeaders) {
        if (status < 200) return true; // an informational answer: the real one follows
        statusCode = status;
        for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
          // The first Retry-After, as `request()`'s parsed headers give it.
          if (retryAfter === undefined && isHeaderName(rawHeaders[index] as Buffer, "retry-after")) {
            retryAfter = (rawHeaders[index + 1] as Buffer).toString("latin1");
          }
        }
        return true;
      },
      onData(chunk) {
        length += chunk.length;
        if (length > options.maxBytes) {
          untrack(call);
          const error = new UpstreamTooLargeError(options.maxBytes);
          call.abort?.(error);
          reject(error);
          return false;
        }
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        untrack(call);
        resolve({ statusCode, retryAfter, text: decode(chunks, length) });
      },
      onError(error) {
        untrack(call);
        reject(error);
      },
    };
    dispatcher.dispatch(
      {
        method: options.method as Dispatcher.HttpMethod,
        path: options.path,
        headers: options.headers,
        body: options.body,
      },
      handler,
    );
  });
}

/** UTF-8, without a leading byte order mark (as undici's `body.text()`). */
function decode(chunks: Buffer[], length: number): string {
  if (length === 0) return "";
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bytes.toString("utf8", bom ? 3 : 0);
}
