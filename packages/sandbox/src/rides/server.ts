// The taxi dispatch upstream ("みやこ交通" dispatch API v2): fare quotes are public; a member's trips sit behind OAuth
// 2.0 bearer tokens of the company's own authorization server (scope `trips`). Positions are "lng,lat" in queries and
// [lng, lat] in bodies; times are epoch milliseconds; errors are `{fault: {code, reason}}`. Each trip moves one step
// per SANDBOX_TICK_MS (default 2000); test controls live under /_sandbox/dispatch/.
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { createSandboxApp } from "../shared/app.ts";
import { badRequest, type NativeErrorFormatter } from "../shared/errors.ts";
import { bearerChallenge, type OAuthServer, registerOAuthServer } from "../shared/oauth/index.ts";
import { orderedPush, Pacer, tickFromEnv } from "../shared/pacer.ts";
import { createPushHook, type SandboxHooks } from "../shared/push-hook.ts";
import { MillisecondsOrNull } from "../shared/settings.ts";
import { Dispatch } from "./dispatch.ts";
import { DispatchError } from "./errors.ts";
import { type CarClass, CLASS_NAMES, type LngLat, quote } from "./fares.ts";

export interface RidesSandboxOptions {
  logger?: boolean;
  hooks?: SandboxHooks;
  now?: () => number;
  /** Milliseconds per step of a ride (default SANDBOX_TICK_MS or 2000); null: only the advance control. */
  tickMs?: number | null;
}

const ERROR_CODES: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHENTICATED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  422: "UNPROCESSABLE",
  429: "RATE_LIMITED",
  503: "UNAVAILABLE",
};
export const formatRidesError: NativeErrorFormatter = (error) => ({
  fault: {
    code: error instanceof DispatchError ? error.code : (ERROR_CODES[error.status] ?? "INTERNAL"),
    reason: error.message,
  },
});

const Class = Type.Union(CLASS_NAMES.map((c) => Type.Literal(c)));
const Position = Type.Tuple([Type.Number({ minimum: -180, maximum: 180 }), Type.Number({ minimum: -90, maximum: 90 })]);
const QuoteQuery = Type.Object({ from: Type.String(), to: Type.String(), class: Type.Optional(Class) });
const TripBody = Type.Object({ from: Position, to: Position, class: Class }, { additionalProperties: false });
const TripParams = Type.Object({ trip_id: Type.String({ minLength: 1, maxLength: 64 }) });
const TripControl = Type.Object({ trip_id: Type.String() });
const Settings = Type.Object({ tick_ms: MillisecondsOrNull() }, { additionalProperties: false });

/** "lng,lat" → [lng, lat]. */
function position(text: string, name: string): LngLat {
  const parts = text.split(",").map(Number);
  const [lng, lat] = parts;
  if (parts.length !== 2 || lng === undefined || lat === undefined || !parts.every(Number.isFinite)) {
    throw badRequest(`${name} must be "lng,lat"`);
  }
  return [lng, lat];
}

function memberRoutes(dispatch: Dispatch, oauth: OAuthServer) {
  return async (api: FastifyInstance) => {
    api.addHook("preHandler", async (request, reply) => {
      const check = oauth.verifyBearer(request, "trips");
      if (check.ok) {
        request.ridesMember = check.owner.userId;
        return;
      }
      const status = check.error === "insufficient_scope" ? 403 : 401;
      return reply
        .code(status)
        .header("www-authenticate", bearerChallenge(check))
        .send(formatRidesError({ status, kind: "bad_request", message: check.description }));
    });
    const member = (request: FastifyRequest) => request.ridesMember as string;
    api.post<{ Body: Static<typeof TripBody> }>(
      "/api/v2/trips",
      { schema: { body: TripBody } },
      async (request, reply) => {
        const { from, to } = request.body;
        const trip = dispatch.request(member(request), { from, to, class: request.body.class });
        return reply.code(201).send({ trip });
      },
    );
    api.get<{ Params: Static<typeof TripParams> }>(
      "/api/v2/trips/:trip_id",
      { schema: { params: TripParams } },
      async (request) => ({ trip: dispatch.trip(member(request), request.params.trip_id) }),
    );
    api.post<{ Params: Static<typeof TripParams> }>(
      "/api/v2/trips/:trip_id/cancel",
      { schema: { params: TripParams } },
      async (request) => ({ trip: dispatch.cancelByRider(member(request), request.params.trip_id) }),
    );
  };
}

/** What the cars do, on demand (tests), and their pace. */
function controlRoutes(app: FastifyInstance, dispatch: Dispatch, pacer: Pacer): void {
  const actions = { advance: dispatch.advance, cancel: dispatch.cancelByDriver } as const;
  for (const [action, run] of Object.entries(actions)) {
    app.post<{ Body: Static<typeof TripControl> }>(
      `/_sandbox/dispatch/${action}`,
      { schema: { body: TripControl } },
      async (request) => ({ trip: run.call(dispatch, request.body.trip_id) }),
    );
  }
  app.post<{ Body: Static<typeof Settings> }>(
    "/_sandbox/dispatch/settings",
    { schema: { body: Settings } },
    async (r) => {
      pacer.tickMs = r.body.tick_ms;
      return { tick_ms: pacer.tickMs };
    },
  );
}

export function createRidesSandbox(options: RidesSandboxOptions = {}) {
  const now = options.now ?? Date.now;
  const app = createSandboxApp({ providerId: "rides", formatError: formatRidesError, logger: options.logger ?? false });
  const pacer = new Pacer(options.tickMs === undefined ? tickFromEnv() : options.tickMs);
  const dispatch = new Dispatch({ now, pacer, push: orderedPush(createPushHook(options.hooks)) });
  const oauth = registerOAuthServer(app, {
    siteName: "みやこ交通",
    scopes: { trips: "配車の依頼・確認・キャンセル (request, follow and cancel rides)" },
    tokenPrefix: "myk",
    now,
  });
  app.decorateRequest("ridesMember", undefined);
  app.get<{ Querystring: Static<typeof QuoteQuery> }>(
    "/api/v2/quotes",
    { schema: { querystring: QuoteQuery } },
    async (r) => {
      const classes: CarClass[] = r.query.class === undefined ? CLASS_NAMES : [r.query.class];
      return quote(position(r.query.from, "from"), position(r.query.to, "to"), classes);
    },
  );
  app.register(memberRoutes(dispatch, oauth));
  controlRoutes(app, dispatch, pacer);
  app.addHook("onClose", async () => pacer.close());
  return { app, oauth, dispatch, pacer };
}

/** The builder the sandbox registry starts (`startSandbox("rides", {hooks})`). */
export const buildRidesSandbox = (options: { logger?: boolean; hooks?: SandboxHooks } = {}): FastifyInstance =>
  createRidesSandbox(options).app;

declare module "fastify" {
  interface FastifyRequest {
    /** The rider the bearer token belongs to (member routes only). */
    ridesMember: string | undefined;
  }
}
