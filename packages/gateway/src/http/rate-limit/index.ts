// Per-key rate limits on every /v1 request, checked after authentication and before the body is read, once the
// request is let run: one pipelined behind an answer that closes the connection never is (the preParsing hook of
// app.ts, which runs before this one), and is never charged. Headers follow draft-ietf-httpapi-ratelimit-headers-11
// (structured fields, policy "default"):
//   RateLimit-Policy: "default";q=<requests a minute>;w=60
//   RateLimit: "default";r=<requests possible now>;t=<seconds until the full burst is back>
// A refused request answers 429 rate_limited with Retry-After (whole seconds, at least 1) and r=0;t=<Retry-After>.
import type { FastifyError, FastifyInstance, FastifyReply } from "fastify";
import { callerOf } from "../../core/api-keys.ts";
import { GatewayError } from "../../core/errors.ts";
import type { RateLimitDecision, RateLimitPolicy } from "../../core/rate-limit/gcra.ts";
import type { RateLimiter } from "../../core/rate-limit/limiter.ts";
import type { Metrics } from "../metrics.ts";

export interface RateLimitDeps {
  limiter: RateLimiter;
  /** For keys without a limit of their own (default 600 a minute, burst 60). */
  defaultPolicy: RateLimitPolicy;
  metrics: Pick<Metrics, "rateLimitFailOpen">;
}

/** The headers the limiter gives an answer, for an answer written without Fastify (a body that broke off). */
export const rateLimitHeaderNames = ["ratelimit-policy", "ratelimit"] as const;

export const policyHeader = (policy: RateLimitPolicy) => `"default";q=${policy.perMinute};w=60`;

export const limitHeader = (remaining: number, seconds: number) => `"default";r=${remaining};t=${seconds}`;

const retryAfterSeconds = (decision: RateLimitDecision) => Math.max(1, Math.ceil(decision.retryAfterMs / 1000));

export function rateLimit(deps: RateLimitDeps) {
  return function registerRateLimit(app: FastifyInstance): void {
    // A callback hook: the in-process limiter decides synchronously, and then no promise is made for it.
    app.addHook("preParsing", (request, reply, payload, done) => {
      const principal = request.principal;
      if (!principal) return done(null, payload);
      const policy = principal.rateLimit ?? deps.defaultPolicy;
      reply.header("ratelimit-policy", policyHeader(policy));
      const finish = (decision: RateLimitDecision | undefined) => {
        if (!decision) {
          deps.metrics.rateLimitFailOpen.inc();
          return done(null, payload);
        }
        const wait = applyDecision(reply, decision);
        if (wait === undefined) return done(null, payload);
        done(
          new GatewayError(
            "rate_limited",
            `This key may send ${requests(policy.perMinute)} a minute (bursts of ${policy.burst}); retry in ${wait} s`,
            {
              retryAfterSeconds: wait,
              fix: "Wait for Retry-After seconds; spread requests using the RateLimit header.",
            },
          ) as FastifyError,
        );
      };
      const decision = deps.limiter.check(callerOf(principal), policy);
      if (decision instanceof Promise) decision.then(finish, done);
      else finish(decision);
    });
  };
}

/**
 * Sets the RateLimit header of a decision (RateLimit-Policy is the caller's to set); answers the whole seconds to wait
 * when the request is refused (its Retry-After), undefined when it may go on.
 */
export function applyDecision(reply: FastifyReply, decision: RateLimitDecision): number | undefined {
  if (decision.allowed) {
    reply.header("ratelimit", limitHeader(decision.remaining, Math.ceil(decision.resetMs / 1000)));
    return undefined;
  }
  const seconds = retryAfterSeconds(decision);
  reply.header("ratelimit", limitHeader(0, seconds));
  return seconds;
}

const requests = (count: number) => (count === 1 ? "1 request" : `${count} requests`);
