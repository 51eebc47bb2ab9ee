// The payment network upstream ("さくらペイ" merchant API v1): a member's charges and refunds behind OAuth 2.0 bearer
// tokens of the network's own authorization server (scopes `charges`, `refunds`). Amounts are integer yen with a
// lower-case currency, times unix seconds, errors `{error: {type, code, message}}`; each POST honours an
// Idempotency-Key. A charge settles one SANDBOX_TICK_MS (default 2000) after creation; test controls live under
// /_sandbox/network/.
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { createSandboxApp } from "../shared/app.ts";
import type { NativeErrorFormatter } from "../shared/errors.ts";
import { idempotentRequests } from "../shared/idempotent-requests.ts";
import { bearerChallenge, type OAuthServer, registerOAuthServer } from "../shared/oauth/index.ts";
import { orderedPush, Pacer, tickFromEnv } from "../shared/pacer.ts";
import { createPushHook, type SandboxHooks } from "../shared/push-hook.ts";
import { MillisecondsOrNull } from "../shared/settings.ts";
import { Network, PaymentError } from "./network.ts";

export interface PaymentsSandboxOptions {
  logger?: boolean;
  hooks?: SandboxHooks;
  now?: () => number;
  /** Milliseconds until a charge settles (default SANDBOX_TICK_MS or 2000); null: only the settle control. */
  tickMs?: number | null;
}

export const formatPaymentsError: NativeErrorFormatter = (error) => ({
  error: {
    type: error instanceof PaymentError ? error.type : error.status >= 500 ? "api_error" : "invalid_request_error",
    code: error instanceof PaymentError ? error.code : error.status === 404 ? "resource_missing" : "parameter_invalid",
    message: error.message,
  },
});

const ChargeBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1 }),
    currency: Type.String({ minLength: 3, maxLength: 3 }),
    description: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);
const ChargeParams = Type.Object({ charge_id: Type.String({ minLength: 1, maxLength: 64 }) });
const ChargeControl = Type.Object({ charge_id: Type.String() });
const Settings = Type.Object({ tick_ms: MillisecondsOrNull() }, { additionalProperties: false });

function memberRoutes(network: Network, oauth: OAuthServer, now: () => number) {
  return async (api: FastifyInstance) => {
    api.addHook("preHandler", async (request, reply) => {
      const check = oauth.verifyBearer(request, /\/refund$/.test(request.url) ? "refunds" : "charges");
      if (check.ok) {
        request.paymentsMember = check.owner.userId;
        return;
      }
      const status = check.error === "insufficient_scope" ? 403 : 401;
      return reply
        .code(status)
        .header("www-authenticate", bearerChallenge(check))
        .send(formatPaymentsError({ status, kind: "bad_request", message: check.description }));
    });
    const member = (request: FastifyRequest) => request.paymentsMember as string;
    // A charge or a refund sent again with its Idempotency-Key is answered as the first time, not executed again.
    idempotentRequests(api, { scope: member, now });
    api.post<{ Body: Static<typeof ChargeBody> }>(
      "/v1/charges",
      { schema: { body: ChargeBody } },
      async (request, reply) => reply.code(201).send({ charge: network.create(member(request), request.body) }),
    );
    api.get<{ Params: Static<typeof ChargeParams> }>(
      "/v1/charges/:charge_id",
      { schema: { params: ChargeParams } },
      async (request) => ({ charge: network.charge(member(request), request.params.charge_id) }),
    );
    api.post<{ Params: Static<typeof ChargeParams> }>(
      "/v1/charges/:charge_id/refund",
      { schema: { params: ChargeParams } },
      async (request) => ({ charge: network.refund(member(request), request.params.charge_id) }),
    );
  };
}

export function createPaymentsSandbox(options: PaymentsSandboxOptions = {}) {
  const now = options.now ?? Date.now;
  const app = createSandboxApp({
    providerId: "payments",
    formatError: formatPaymentsError,
    logger: options.logger ?? false,
  });
  const pacer = new Pacer(options.tickMs === undefined ? tickFromEnv() : options.tickMs);
  const network = new Network({ now, pacer, push: orderedPush(createPushHook(options.hooks)) });
  const oauth = registerOAuthServer(app, {
    siteName: "さくらペイ",
    scopes: {
      charges: "登録カードでの支払いと確認 (pay with your card on file and view payments)",
      refunds: "支払いの返金 (refund payments)",
    },
    tokenPrefix: "skp",
    now,
  });
  app.decorateRequest("paymentsMember", undefined);
  app.register(memberRoutes(network, oauth, now));
  app.post<{ Body: Static<typeof ChargeControl> }>(
    "/_sandbox/network/settle",
    { schema: { body: ChargeControl } },
    async (r) => ({
      charge: network.settle(r.body.charge_id),
    }),
  );
  app.post<{ Body: Static<typeof Settings> }>(
    "/_sandbox/network/settings",
    { schema: { body: Settings } },
    async (r) => {
      pacer.tickMs = r.body.tick_ms;
      return { tick_ms: pacer.tickMs };
    },
  );
  app.addHook("onClose", async () => pacer.close());
  return { app, oauth, network, pacer };
}

/** The builder the sandbox registry starts (`startSandbox("payments", {hooks})`). */
export const buildPaymentsSandbox = (options: { logger?: boolean; hooks?: SandboxHooks } = {}): FastifyInstance =>
  createPaymentsSandbox(options).app;

declare module "fastify" {
  interface FastifyRequest {
    /** The network member the bearer token belongs to (member routes only). */
    paymentsMember: string | undefined;
  }
}
