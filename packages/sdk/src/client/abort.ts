// Waiting and cancelling: a sleep that an AbortSignal cuts short, and one controller per attempt that aborts on the
// caller's signal or on the attempt's own timeout, telling the two apart.

/**
 * The callbacks waiting on each caller's signal, behind one listener of its own: a signal shared by many calls in
 * flight (one per request handler, a shutdown signal) would otherwise collect a listener per call, and past ten Node
 * warns of a leak that is not one.
 */
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `callback` once when `signal` aborts; answers the function that stops waiting. */
function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let callbacks = waiting.get(signal);
  if (callbacks === undefined) {
    const set = new Set<() => void>();
    callbacks = set;
    waiting.set(signal, set);
    signal.addEventListener(
      "abort",
      () => {
        waiting.delete(signal);
        for (const waiter of set) waiter();
      },
      { once: true },
    );
  }
  callbacks.add(callback);
  return () => callbacks.delete(callback);
}

/** Resolves after `ms`, or rejects with `signal.reason` as soon as the signal aborts. */
export function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const stopWaiting = signal
      ? onAbort(signal, () => {
          clearTimeout(timer);
          reject(signal.reason);
        })
      : undefined;
    const timer = setTimeout(() => {
      stopWaiting?.();
      resolve();
    }, ms);
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
  let stopWaiting: (() => void) | undefined;
  if (caller?.aborted) controller.abort(caller.reason);
  else if (caller) stopWaiting = onAbort(caller, () => controller.abort(caller.reason));
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
      stopWaiting?.();
    },
  };
}
