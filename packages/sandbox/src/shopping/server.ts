// The shopping upstream ("さくらマーケット" member API v2): items are public; a member's cart and price watch list sit
// behind an OAuth 2.0 bearer token issued by the site's own authorization server (shared/oauth). Errors are
// `{error: {code, message}}`; `prod_offline` makes the item service answer 503.
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { createSandboxApp } from "../shared/app.ts";
import type { NativeErrorFormatter } from "../shared/errors.ts";
import {
  bearerChallenge,
  type OAuthServer,
  type OAuthServerOptions,
  registerOAuthServer,
} from "../shared/oauth/index.ts";
import { buildProducts, DEFAULT_PRICE_PERIOD_MS, DEFAULT_PRICE_SEED } from "./catalog.ts";
import { MAX_LINE_QTY, Shop } from "./shop.ts";

export interface ShoppingSandboxOptions {
  logger?: boolean;
  /** Milliseconds since the epoch: prices and token lifetimes follow it (tests pass a fake clock). */
  now?: () => number;
  /** Seed of the price movements (default SANDBOX_PRICE_SEED or "sakura-market"). */
  priceSeed?: string;
  /** Length of one price period (default SANDBOX_PRICE_PERIOD_MS or 10 minutes). */
  pricePeriodMs?: number;
  oauth?: Partial<Omit<OAuthServerOptions, "now">>;
}

export interface ShoppingSandbox {
  app: FastifyInstance;
  oauth: OAuthServer;
  shop: Shop;
}

const ERROR_CODES: Record<number, string> = {
  400: "BAD_PARAMETER",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "ITEM_NOT_FOUND",
  422: "LIMIT_EXCEEDED",
  429: "TOO_MANY_REQUESTS",
  503: "SERVICE_UNAVAILABLE",
};
export const formatShoppingError: NativeErrorFormatter = ({ status, message }) => ({
  error: { code: ERROR_CODES[status] ?? (status >= 500 ? "SYSTEM_ERROR" : "BAD_PARAMETER"), message },
});

const Sku = Type.Object({ sku: Type.String({ minLength: 1, maxLength: 64 }) });
const AddLine = Type.Object(
  {
    sku: Type.String({ minLength: 1, maxLength: 64 }),
    qty: Type.Integer({ minimum: 1, maximum: MAX_LINE_QTY, default: 1 }),
  },
  { additionalProperties: false },
);
const WatchBody = Type.Object(
  { target_price_jpy: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])) },
  { additionalProperties: false },
);

const envNumber = (name: string) => (Number(process.env[name]) > 0 ? Number(process.env[name]) : undefined);

function memberRoutes(shop: Shop, oauth: OAuthServer) {
  return async (api: FastifyInstance) => {
    api.addHook("preHandler", async (request, reply) => {
      const scope = request.url.startsWith("/api/v2/watchlist")
        ? "watchlist"
        : request.url.startsWith("/api/v2/cart")
          ? "cart"
          : undefined;
      const check = oauth.verifyBearer(request, scope);
      if (check.ok) {
        request.memberId = check.owner.userId;
        return;
      }
      const status = check.error === "insufficient_scope" ? 403 : 401;
      return reply
        .code(status)
        .header("www-authenticate", bearerChallenge(check))
        .send(formatShoppingError({ status, kind: "bad_request", message: check.description }));
    });
    const member = (request: FastifyRequest) => request.memberId as string;

    api.get("/api/v2/me", async (request) => ({ member_id: member(request) }));
    api.get("/api/v2/cart", async (request) => shop.cartView(member(request)));
    api.post<{ Body: Static<typeof AddLine> }>(
      "/api/v2/cart/lines",
      { schema: { body: AddLine } },
      async (request, reply) => {
        shop.addLine(member(request), request.body.sku, request.body.qty);
        return reply.code(201).send(shop.cartView(member(request)));
      },
    );
    api.delete<{ Params: Static<typeof Sku> }>(
      "/api/v2/cart/lines/:sku",
      { schema: { params: Sku } },
      async (request) => {
        shop.product(request.params.sku);
        const deleted = shop.cartOf(member(request)).delete(request.params.sku) ? 1 : 0;
        return { deleted, ...shop.cartView(member(request)) };
      },
    );
    api.delete("/api/v2/cart", async (request) => {
      shop.cartOf(member(request)).clear();
      return shop.cartView(member(request));
    });

    api.get("/api/v2/watchlist", async (request) => {
      const entries = [...shop.watchesOf(member(request))].map(([sku, entry]) => shop.watchView(sku, entry));
      return { entries, count: entries.length, checked_at: new Date(shop.now()).toISOString() };
    });
    api.put<{ Params: Static<typeof Sku>; Body: Static<typeof WatchBody> }>(
      "/api/v2/watchlist/:sku",
      { schema: { params: Sku, body: WatchBody } },
      async (request, reply) => {
        const { sku } = request.params;
        const { created, entry } = shop.watch(member(request), sku, request.body?.target_price_jpy ?? null);
        return reply.code(created ? 201 : 200).send({ created, entry: shop.watchView(sku, entry) });
      },
    );
    api.delete<{ Params: Static<typeof Sku> }>(
      "/api/v2/watchlist/:sku",
      { schema: { params: Sku } },
      async (request) => {
        shop.product(request.params.sku);
        return { deleted: shop.watchesOf(member(request)).delete(request.params.sku) ? 1 : 0 };
      },
    );
  };
}

export function createShoppingSandbox(options: ShoppingSandboxOptions = {}): ShoppingSandbox {
  const now = options.now ?? Date.now;
  const app = createSandboxApp({
    providerId: "shopping",
    formatError: formatShoppingError,
    logger: options.logger ?? false,
  });
  const shop = new Shop(
    buildProducts(),
    {
      // Empty is unset, as for every other variable.
      seed: options.priceSeed ?? (process.env.SANDBOX_PRICE_SEED || DEFAULT_PRICE_SEED),
      periodMs: options.pricePeriodMs ?? envNumber("SANDBOX_PRICE_PERIOD_MS") ?? DEFAULT_PRICE_PERIOD_MS,
    },
    now,
  );
  const oauth = registerOAuthServer(app, {
    siteName: "さくらマーケット",
    scopes: {
      cart: "カートの閲覧と変更 (view and change your cart)",
      watchlist: "値下がりウォッチの管理 (manage your price watches)",
    },
    tokenPrefix: "smk",
    ...options.oauth,
    now,
  });
  app.decorateRequest("memberId", undefined);
  app.get<{ Params: Static<typeof Sku> }>("/api/v2/items/:sku", { schema: { params: Sku } }, async (request) => ({
    item: shop.itemView(shop.product(request.params.sku)),
  }));
  app.register(memberRoutes(shop, oauth));
  return { app, oauth, shop };
}

/** The builder the sandbox registry starts (`startSandbox("shopping")`). */
export const buildShoppingSandbox = (options: { logger?: boolean } = {}): FastifyInstance =>
  createShoppingSandbox(options).app;

declare module "fastify" {
  interface FastifyRequest {
    /** The shop member the bearer token belongs to (member routes only). */
    memberId: string | undefined;
  }
}
