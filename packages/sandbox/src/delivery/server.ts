// The food delivery upstream ("まんぷく便" partner API v1): stores and their menus are public; a member's orders sit
// behind OAuth 2.0 bearer tokens of the app's own authorization server (scope `orders`). Errors are
// `{error_code, message}`. The kitchen and the courier move each order one step per SANDBOX_TICK_MS (default 2000);
// test controls live under /_sandbox/kitchen/.
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { createSandboxApp } from "../shared/app.ts";
import type { NativeErrorFormatter } from "../shared/errors.ts";
import { bearerChallenge, type OAuthServer, registerOAuthServer } from "../shared/oauth/index.ts";
import { orderedPush, Pacer, tickFromEnv } from "../shared/pacer.ts";
import { pageParam, paginate, perPageParam } from "../shared/paging.ts";
import { createPushHook, type SandboxHooks } from "../shared/push-hook.ts";
import { foldForSearch } from "../shared/search.ts";
import { MillisecondsOrNull } from "../shared/settings.ts";
import { DeliveryError, Kitchen } from "./kitchen.ts";
import { STORES, type Store } from "./stores.ts";

export interface DeliverySandboxOptions {
  logger?: boolean;
  hooks?: SandboxHooks;
  now?: () => number;
  /** Milliseconds per kitchen or courier step (default SANDBOX_TICK_MS or 2000); null: only the advance control. */
  tickMs?: number | null;
}

const ERROR_CODES: Record<number, string> = {
  400: "INVALID_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  422: "UNPROCESSABLE",
  429: "TOO_MANY_REQUESTS",
  503: "UNAVAILABLE",
};
export const formatDeliveryError: NativeErrorFormatter = (error) => ({
  error_code: error instanceof DeliveryError ? error.code : (ERROR_CODES[error.status] ?? "SERVER_ERROR"),
  message: error.message,
});

const StoreQuery = Type.Object({
  area: Type.Optional(Type.String({ maxLength: 40 })),
  genre: Type.Optional(Type.String({ maxLength: 40 })),
  q: Type.Optional(Type.String({ maxLength: 100 })),
  page: pageParam(),
  per_page: perPageParam(20, 100),
});
const OrderBody = Type.Object(
  {
    store_id: Type.String({ minLength: 1, maxLength: 64 }),
    lines: Type.Array(
      Type.Object(
        { item_code: Type.String({ minLength: 1, maxLength: 64 }), qty: Type.Integer({ minimum: 1, maximum: 99 }) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 50 },
    ),
    drop_off: Type.Object({ address: Type.String({ minLength: 1, maxLength: 300 }) }, { additionalProperties: false }),
    memo: Type.Optional(Type.String({ maxLength: 300 })),
  },
  { additionalProperties: false },
);
const OrderParams = Type.Object({ order_no: Type.String({ minLength: 1, maxLength: 64 }) });
const OrderControl = Type.Object({ order_no: Type.String() });
const Settings = Type.Object({ tick_ms: MillisecondsOrNull() }, { additionalProperties: false });

/** A store with the menu items matching the keyword (all of them when its name matches); undefined: none. */
function withMatchingItems(store: Store, keyword: string | undefined): Store | undefined {
  if (keyword === undefined || keyword === "") return store;
  const k = foldForSearch(keyword);
  if (foldForSearch(`${store.name} ${store.name_en}`).includes(k)) return store;
  const menu = store.menu.filter((i) => foldForSearch(`${i.name} ${i.name_en} ${i.description}`).includes(k));
  return menu.length > 0 ? { ...store, menu } : undefined;
}

function memberRoutes(kitchen: Kitchen, oauth: OAuthServer) {
  return async (api: FastifyInstance) => {
    api.addHook("preHandler", async (request, reply) => {
      const check = oauth.verifyBearer(request, "orders");
      if (check.ok) {
        request.deliveryMember = check.owner.userId;
        return;
      }
      const status = check.error === "insufficient_scope" ? 403 : 401;
      return reply
        .code(status)
        .header("www-authenticate", bearerChallenge(check))
        .send(formatDeliveryError({ status, kind: "bad_request", message: check.description }));
    });
    const member = (request: FastifyRequest) => request.deliveryMember as string;
    api.post<{ Body: Static<typeof OrderBody> }>(
      "/v1/orders",
      { schema: { body: OrderBody } },
      async (request, reply) => {
        const { store_id, ...order } = request.body;
        return reply.code(201).send({ order: kitchen.place(member(request), store_id, order) });
      },
    );
    api.get<{ Params: Static<typeof OrderParams> }>(
      "/v1/orders/:order_no",
      { schema: { params: OrderParams } },
      async (request) => ({ order: kitchen.order(member(request), request.params.order_no) }),
    );
    api.post<{ Params: Static<typeof OrderParams> }>(
      "/v1/orders/:order_no/cancel",
      { schema: { params: OrderParams } },
      async (request) => ({ order: kitchen.cancelByCustomer(member(request), request.params.order_no) }),
    );
  };
}

/** What the kitchen and the courier do, on demand (tests), and their pace. */
function controlRoutes(app: FastifyInstance, kitchen: Kitchen, pacer: Pacer): void {
  const actions = { advance: kitchen.advance, reject: kitchen.rejectByStore } as const;
  for (const [action, run] of Object.entries(actions)) {
    app.post<{ Body: Static<typeof OrderControl> }>(
      `/_sandbox/kitchen/${action}`,
      { schema: { body: OrderControl } },
      async (request) => ({ order: run.call(kitchen, request.body.order_no) }),
    );
  }
  app.post<{ Body: Static<typeof Settings> }>(
    "/_sandbox/kitchen/settings",
    { schema: { body: Settings } },
    async (r) => {
      pacer.tickMs = r.body.tick_ms;
      return { tick_ms: pacer.tickMs };
    },
  );
}

export function createDeliverySandbox(options: DeliverySandboxOptions = {}) {
  const now = options.now ?? Date.now;
  const app = createSandboxApp({
    providerId: "delivery",
    formatError: formatDeliveryError,
    logger: options.logger ?? false,
  });
  const pacer = new Pacer(options.tickMs === undefined ? tickFromEnv() : options.tickMs);
  const kitchen = new Kitchen({ now, pacer, push: orderedPush(createPushHook(options.hooks)) });
  const oauth = registerOAuthServer(app, {
    siteName: "まんぷく便",
    scopes: { orders: "注文の作成・確認・キャンセル (place, view and cancel orders)" },
    tokenPrefix: "mpk",
    now,
  });
  app.decorateRequest("deliveryMember", undefined);
  app.get<{ Querystring: Static<typeof StoreQuery> }>(
    "/v1/stores",
    { schema: { querystring: StoreQuery } },
    async (r) => {
      const { area, genre, q, page, per_page } = r.query;
      const matching = STORES.filter(
        (s) => (area === undefined || s.area === area) && (genre === undefined || s.genre === genre),
      )
        .map((s) => withMatchingItems(s, q))
        .filter((s): s is Store => s !== undefined);
      const result = paginate(matching, page, per_page);
      return {
        stores: result.items,
        page_info: { page, per_page, total: result.total, total_pages: result.pageCount },
      };
    },
  );
  app.register(memberRoutes(kitchen, oauth));
  controlRoutes(app, kitchen, pacer);
  app.addHook("onClose", async () => pacer.close());
  return { app, oauth, kitchen, pacer };
}

/** The builder the sandbox registry starts (`startSandbox("delivery", {hooks})`). */
export const buildDeliverySandbox = (options: { logger?: boolean; hooks?: SandboxHooks } = {}): FastifyInstance =>
  createDeliverySandbox(options).app;

declare module "fastify" {
  interface FastifyRequest {
    /** The app member the bearer token belongs to (member routes only). */
    deliveryMember: string | undefined;
  }
}
