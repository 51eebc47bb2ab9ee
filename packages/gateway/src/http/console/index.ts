// The web console's server side, assembled for the composition root: users, sessions, sign-in throttling,
// delegation tokens (a token resolver for /v1), usage recording, the console API under /console/api, the built
// single page at /console and the public demo at /demo.
import type { FastifyInstance } from "fastify";
import type { GatewayConfig } from "../../config.ts";
import type { Principal } from "../../core/api-keys.ts";
import type { RateLimitPolicy } from "../../core/rate-limit/gcra.ts";
import type { RateLimiter } from "../../core/rate-limit/limiter.ts";
import type { CoreServices } from "../../core/services.ts";
import { UsageRecorder } from "../../core/usage/recorder.ts";
import { DelegationTokens } from "../../core/users/delegation-tokens.ts";
import { LoginThrottle, type ThrottleLimits } from "../../core/users/login-throttle.ts";
import { Sessions } from "../../core/users/sessions.ts";
import { Users } from "../../core/users/users.ts";
import type { Registry } from "../../providers/registry.ts";
import type { SharedUpstreamClient } from "../../providers/upstream.ts";
import type { RequestObserver } from "../app.ts";
import { ConnectionHandles } from "./connection-handles.ts";
import { cookieSettings } from "./cookies.ts";
import { delegationRoutes } from "./delegation-routes.ts";
import { demoRoutes } from "./demo-routes.ts";
import { operationRoutes } from "./operations-routes.ts";
import { delegationRedactionHook } from "./redaction-hook.ts";
import { sessionGuard } from "./session-guard.ts";
import { type SessionRouteDeps, sessionRoutes, signInRoutes } from "./session-routes.ts";
import { consoleStaticRoutes } from "./static-routes.ts";
import { usageObserver, usageRoutes } from "./usage-routes.ts";

export interface ConsoleDeps {
  config: Pick<GatewayConfig, "publicUrl">;
  core: CoreServices;
  registry: Registry;
  upstream(providerId: string): SharedUpstreamClient;
  /** The master key: connection handles are derived from it, so that every node opens every other's. */
  masterKey: Uint8Array;
  /** GATEWAY_MASTER_KEY_PREVIOUS: handles derived from these still open during a rotation. */
  previousMasterKeys?: readonly Uint8Array[];
  /** Overrides for tests. */
  throttle?: ThrottleLimits;
  /** The gateway's rate limiter (in process, or Redis shared by every node): the demo's per-visitor limit uses it. */
  limiter: RateLimiter;
  demoLimit?: RateLimitPolicy;
  usageFlushIntervalMs?: number;
  consoleDir?: string;
}

export interface ConsoleSurface {
  users: Users;
  usage: UsageRecorder;
  tokenResolvers: ((token: string) => Promise<Principal> | undefined)[];
  plugins: ((app: FastifyInstance) => Promise<void>)[];
  observers: RequestObserver[];
  close(): Promise<void>;
}

export const demoLimitDefaults: RateLimitPolicy = { perMinute: 10, burst: 5 };

export function createConsole(deps: ConsoleDeps): ConsoleSurface {
  const { core, registry } = deps;
  const db = core.store.db;
  const users = new Users(db, core.clock);
  const sessions = new Sessions(db, core.clock);
  const delegation = new DelegationTokens(db, core.clock);
  const usage = new UsageRecorder(db, core.clock);
  usage.start(deps.usageFlushIntervalMs ?? 5_000);
  const handles = new ConnectionHandles(deps.masterKey, deps.previousMasterKeys);
  const cookie = cookieSettings(deps.config.publicUrl);
  const sessionDeps: SessionRouteDeps = {
    users,
    sessions,
    throttle: new LoginThrottle(db, core.clock, deps.throttle),
    cookie,
    publicUrl: deps.config.publicUrl,
  };
  const execute = { core, upstream: deps.upstream };

  const consoleApi = async (app: FastifyInstance) => {
    app.decorateRequest("consoleSession", undefined);
    await app.register(signInRoutes(sessionDeps));
    await app.register(async (guarded) => {
      guarded.addHook("onRequest", sessionGuard(sessions, cookie, deps.config.publicUrl));
      sessionRoutes(guarded, sessionDeps);
      operationRoutes(guarded, { ...execute, registry, handles });
      delegationRoutes(guarded, { registry, delegation, handles });
      usageRoutes(guarded, { store: core.store, clock: core.clock, recorder: usage });
    });
  };

  return {
    users,
    usage,
    tokenResolvers: [delegation.resolve],
    observers: [usageObserver(usage)],
    plugins: [
      delegationRedactionHook(handles),
      consoleApi,
      consoleStaticRoutes(deps.consoleDir === undefined ? {} : { dir: deps.consoleDir }),
      demoRoutes({ ...execute, registry, limiter: deps.limiter, limit: deps.demoLimit ?? demoLimitDefaults }),
    ],
    close: () => usage.stop(),
  };
}
