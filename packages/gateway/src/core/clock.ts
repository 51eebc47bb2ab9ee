// Time as a dependency, so that expiry, retries and schedules can be tested with a fake clock.
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const isoTime = (ms: number) => new Date(ms).toISOString();
