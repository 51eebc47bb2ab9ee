// Waiting and cancelling: a sleep that an AbortSignal cuts short, and one controller per attempt that aborts on the
// caller's signal or on the attempt's own timeout, telling the two apart.

/** Resolves after `ms`, or rejects with `signal.reason` as soon as the signal aborts. */
export function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export interface AttemptSignal {
  signal: AbortSignal;
  /** True once the attempt's own timeout fired (not the caller's signal). */
  readonly timedOut: boolean;
  /** Stops the timer and detaches from the caller's signal; call when the attempt is over. */
  done(): void;
}

/** A signal for one attempt: aborted by the caller's signal or after `timeoutMs`, whichever comes first. */
export function attemptSignal(timeoutMs: number, caller: AbortSignal | undefined): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) controller.abort(caller.reason);
  else caller?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`The attempt timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    done() {
      clearTimeout(timer);
      caller?.removeEventListener("abort", onAbort);
    },
  };
}
