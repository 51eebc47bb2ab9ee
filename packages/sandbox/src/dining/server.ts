// The restaurant booking upstream ("東京テーブル" partner API v1): shops and their free slots are public; a member's
// bookings and queue tickets sit behind OAuth 2.0 bearer tokens of the site's own authorization server. Errors are
// `{errors: [{code, detail}]}`. Venue behaviour: SANDBOX_VENUE_DELAY_MS (default 5000) until a `request` venue
// confirms; SANDBOX_QUEUE_CALL_MS (default: the venue delay) until a queued party is called; SANDBOX_QUEUE_HOLD_MS
// (default 10 minutes) for a called party to show up. Test controls live under /_sandbox/venue/.
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { createSandboxApp } from "../shared/app.ts";
import { badRequest, type NativeErrorFormatter } from "../shared/errors.ts";
import { bearerChallenge, type OAuthServer, registerOAuthServer } from "../shared/oauth/index.ts";
import { pageParam, paginate, perPageParam } from "../shared/paging.ts";
import { createPushHook, type SandboxHooks } from "../shared/push-hook.ts";
import { freeSlots, isCalendarDate, tokyoDate } from "./calendar.ts";
import { controlRoutes } from "./controls.ts";
import { maxSeats, SHOPS, type Shop } from "./restaurants.ts";
import { DiningError, shopOf, Venue } from "./venue.ts";

export interface DiningSandboxOptions {
  logger?: boolean;
  hooks?: SandboxHooks;
  now?: () => number;
  venueDelayMs?: number;
  /** null: queued parties are called only through POST /_sandbox/venue/call. */
  queueCallMs?: number | null;
  queueHoldMs?: number;
}

const ERROR_CODES: Record<number, string> = {
  400: "INVALID_PARAMETER",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  422: "POLICY_VIOLATION",
  429: "RATE_LIMITED",
  503: "MAINTENANCE",
};
export const formatDiningError: NativeErrorFormatter = (error) => ({
  errors: [
    {
      code: error instanceof DiningError ? error.code : (ERROR_CODES[error.status] ?? "SYSTEM_ERROR"),
      detail: error.message,
    },
  ],
});

const envMs = (name: string): number | undefined => {
  const value = Number(process.env[name]);
  return process.env[name] !== undefined && Number.isInteger(value) && value >= 0 ? value : undefined;
};

const Seats = Type.Integer({ minimum: 1, maximum: 99 });
const GuestName = Type.String({ minLength: 1, maxLength: 100 });
const ShopParams = Type.Object({ shop_code: Type.String({ minLength: 1, maxLength: 64 }) });
const ShopQuery = Type.Object({
  area: Type.Optional(Type.String({ maxLength: 40 })),
  genre: Type.Optional(Type.String({ maxLength: 40 })),
  seats: Type.Optional(Seats),
  page: pageParam(),
  per: perPageParam(20, 100),
});
const AvailabilityQuery = Type.Object({ date: Type.String(), seats: Type.Optional(Seats) });
const BookingBody = Type.Object(
  { slot_key: Type.String({ minLength: 1, maxLength: 100 }), seats: Seats, guest_name: GuestName },
  { additionalProperties: false },
);
const QueueBody = Type.Object({ seats: Seats, guest_name: GuestName }, { additionalProperties: false });
const BookingParams = Type.Object({ booking_no: Type.String({ minLength: 1, maxLength: 64 }) });
const TicketParams = Type.Object({ ticket_no: Type.String({ minLength: 1, maxLength: 64 }) });

function shopView(shop: Shop) {
  const { tables: _tables, seating_minutes, ...rest } = shop;
  return { ...rest, seating_minutes, max_seats: maxSeats(shop), reservable: shop.tables.length > 0 };
}

function publicRoutes(app: FastifyInstance, venue: Venue, now: () => number): void {
  app.get<{ Querystring: Static<typeof ShopQuery> }>(
    "/partner/v1/shops",
    { schema: { querystring: ShopQuery } },
    async (request) => {
      const { area, genre, seats, page, per } = request.query;
      const matching = SHOPS.filter(
        (s) =>
          (area === undefined || s.area === area) &&
          (genre === undefined || s.genre === genre) &&
          (seats === undefined || maxSeats(s) >= seats),
      );
      const result = paginate(matching, page, per);
      return {
        shops: result.items.map(shopView),
        paging: { page, per, total: result.total, pages: result.pageCount },
      };
    },
  );
  app.get<{ Params: Static<typeof ShopParams> }>(
    "/partner/v1/shops/:shop_code",
    { schema: { params: ShopParams } },
    async (request) => ({ shop: shopView(shopOf(request.params.shop_code)) }),
  );
  app.get<{ Params: Static<typeof ShopParams>; Querystring: Static<typeof AvailabilityQuery> }>(
    "/partner/v1/shops/:shop_code/availability",
    { schema: { params: ShopParams, querystring: AvailabilityQuery } },
    async (request) => {
      const shop = shopOf(request.params.shop_code);
      const { date, seats } = request.query;
      if (!isCalendarDate(date)) throw badRequest("date must be a calendar date written YYYY-MM-DD");
      if (date < tokyoDate(now())) throw badRequest(`date ${date} is in the past`);
      return {
        shop_code: shop.shop_code,
        date,
        seats: seats ?? null,
        slots: freeSlots(shop, date, seats, now(), venue.bookings.isTaken),
      };
    },
  );
}

function memberRoutes(venue: Venue, oauth: OAuthServer) {
  return async (api: FastifyInstance) => {
    api.addHook("preHandler", async (request, reply) => {
      const scope = /\/(queue)(\/|$)/.test(request.url) ? "queue" : "booking";
      const check = oauth.verifyBearer(request, scope);
      if (check.ok) {
        request.diningMember = check.owner.userId;
        return;
      }
      const status = check.error === "insufficient_scope" ? 403 : 401;
      return reply
        .code(status)
        .header("www-authenticate", bearerChallenge(check))
        .send(formatDiningError({ status, kind: "bad_request", message: check.description }));
    });
    const member = (request: FastifyRequest) => request.diningMember as string;
    type AtShop = { Params: Static<typeof ShopParams> };

    api.post<AtShop & { Body: Static<typeof BookingBody> }>(
      "/partner/v1/shops/:shop_code/bookings",
      { schema: { params: ShopParams, body: BookingBody } },
      async (request, reply) =>
        reply.code(201).send({ booking: venue.bookings.book(member(request), request.params.shop_code, request.body) }),
    );
    api.get<{ Params: Static<typeof BookingParams> }>(
      "/partner/v1/bookings/:booking_no",
      { schema: { params: BookingParams } },
      async (request) => ({ booking: venue.bookings.booking(member(request), request.params.booking_no) }),
    );
    api.post<{ Params: Static<typeof BookingParams> }>(
      "/partner/v1/bookings/:booking_no/cancel",
      { schema: { params: BookingParams } },
      async (request) => ({ booking: venue.bookings.cancelByGuest(member(request), request.params.booking_no) }),
    );
    api.post<AtShop & { Body: Static<typeof QueueBody> }>(
      "/partner/v1/shops/:shop_code/queue",
      { schema: { params: ShopParams, body: QueueBody } },
      async (request, reply) =>
        reply.code(201).send({ ticket: venue.queue.join(member(request), request.params.shop_code, request.body) }),
    );
    api.get<{ Params: Static<typeof TicketParams> }>(
      "/partner/v1/queue/:ticket_no",
      { schema: { params: TicketParams } },
      async (request) => ({ ticket: venue.queue.ticket(member(request), request.params.ticket_no) }),
    );
    api.delete<{ Params: Static<typeof TicketParams> }>(
      "/partner/v1/queue/:ticket_no",
      { schema: { params: TicketParams } },
      async (request) => ({ ticket: venue.queue.leave(member(request), request.params.ticket_no) }),
    );
  };
}

export function createDiningSandbox(options: DiningSandboxOptions = {}) {
  const now = options.now ?? Date.now;
  const app = createSandboxApp({
    providerId: "dining",
    formatError: formatDiningError,
    logger: options.logger ?? false,
  });
  const venueDelayMs = options.venueDelayMs ?? envMs("SANDBOX_VENUE_DELAY_MS") ?? 5000;
  const venue = new Venue({
    now,
    venueDelayMs,
    queueCallMs:
      options.queueCallMs === undefined ? (envMs("SANDBOX_QUEUE_CALL_MS") ?? venueDelayMs) : options.queueCallMs,
    queueHoldMs: options.queueHoldMs ?? envMs("SANDBOX_QUEUE_HOLD_MS") ?? 600_000,
    push: createPushHook(options.hooks),
  });
  const oauth = registerOAuthServer(app, {
    siteName: "東京テーブル",
    scopes: {
      booking: "予約の作成・確認・キャンセル (make, view and cancel bookings)",
      queue: "順番待ちの登録・確認・取り消し (join, view and leave waiting lists)",
    },
    tokenPrefix: "ttb",
    now,
  });
  app.decorateRequest("diningMember", undefined);
  publicRoutes(app, venue, now);
  app.register(memberRoutes(venue, oauth));
  controlRoutes(app, venue);
  app.addHook("onClose", async () => venue.close());
  return { app, oauth, venue };
}

/** The builder the sandbox registry starts (`startSandbox("dining", {hooks})`). */
export const buildDiningSandbox = (options: { logger?: boolean; hooks?: SandboxHooks } = {}): FastifyInstance =>
  createDiningSandbox(options).app;

declare module "fastify" {
  interface FastifyRequest {
    /** The site member the bearer token belongs to (member routes only). */
    diningMember: string | undefined;
  }
}
