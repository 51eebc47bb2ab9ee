// The webhook retry schedule. After the first attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h (each ±20 % jitter),
// then a last attempt at 24 h after the delivery was created; never beyond it. After that the delivery is failed.
export const retryDelaysMs = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000] as const;
export const deliveryWindowMs = 24 * 3600 * 1000;
export const jitterFraction = 0.2;

/**
 * When to try again after `attempts` attempts, the last of which failed at `now`; undefined when the window is over.
 * `random` in [0, 1) spreads retries so that a receiver coming back is not hit by every delivery at once.
 */
export function nextAttemptAt(input: {
  attempts: number;
  now: number;
  deadline: number;
  random?: () => number;
}): number | undefined {
  const { attempts, now, deadline } = input;
  if (now >= deadline) return undefined;
  const delay = retryDelaysMs[attempts - 1];
  if (delay === undefined) return deadline;
  const factor = 1 + jitterFraction * (2 * (input.random ?? Math.random)() - 1);
  return Math.min(Math.round(now + delay * factor), deadline);
}
