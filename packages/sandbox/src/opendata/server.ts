// The public-data upstream: a zipcloud-style postal-code API and a holidays API on one host. Both answer
// `{status, message, results}`; errors carry the HTTP status in `status`, a Japanese message and `results: null`.
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { createSandboxApp } from "../shared/app.ts";
import { badRequest, type NativeErrorFormatter, notFound } from "../shared/errors.ts";
import { FIRST_HOLIDAY_YEAR, holidaysOf, LAST_HOLIDAY_YEAR } from "./holidays.ts";
import { buildPostalIndex } from "./postal.ts";

const formatOpendataError: NativeErrorFormatter = ({ status, message }) => ({ status, message, results: null });

const PostalQuery = Type.Object({
  zipcode: Type.Optional(Type.String()),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});
const HolidayQuery = Type.Object({ year: Type.Optional(Type.String()) });

/** Accepts "1000001" and "100-0001" (ASCII digits only), as zipcloud does. */
function parseZipcode(raw: string | undefined): string {
  if (raw === undefined || raw === "") throw badRequest("必須パラメータが指定されていません。");
  const digits = raw.replace(/^(\d{3})-(\d{4})$/, "$1$2");
  if (!/^\d+$/.test(digits)) throw badRequest("パラメータ「郵便番号」に数字以外の文字が指定されています。");
  if (digits.length !== 7) throw badRequest("パラメータ「郵便番号」の桁数が不正です。");
  return digits;
}

function parseYear(raw: string | undefined): number {
  if (raw === undefined || raw === "") throw badRequest("必須パラメータ「year」が指定されていません。");
  if (!/^\d{4}$/.test(raw)) throw badRequest("パラメータ「year」は4桁の西暦で指定してください。");
  const year = Number(raw);
  if (year < FIRST_HOLIDAY_YEAR || year > LAST_HOLIDAY_YEAR) {
    throw notFound(`${year}年の祝日データはありません（${FIRST_HOLIDAY_YEAR}〜${LAST_HOLIDAY_YEAR}年に対応）。`);
  }
  return year;
}

function registerRoutes(app: FastifyInstance): void {
  const postal = buildPostalIndex();

  app.get<{ Querystring: Static<typeof PostalQuery> }>(
    "/api/search",
    { schema: { querystring: PostalQuery } },
    async (request) => {
      const zipcode = parseZipcode(request.query.zipcode);
      const results = postal.get(zipcode);
      if (results === undefined) throw notFound("該当するデータは見つかりませんでした。");
      return { status: 200, message: null, results: results.slice(0, request.query.limit) };
    },
  );

  app.get<{ Querystring: Static<typeof HolidayQuery> }>(
    "/api/holidays",
    { schema: { querystring: HolidayQuery } },
    async (request) => {
      const year = parseYear(request.query.year);
      const results = holidaysOf(year);
      return { status: 200, message: null, year, count: results.length, results };
    },
  );

  app.get("/api/holidays/coverage", async () => ({
    status: 200,
    message: null,
    results: { firstYear: FIRST_HOLIDAY_YEAR, lastYear: LAST_HOLIDAY_YEAR, postalCodeCount: postal.size },
  }));
}

export function buildOpendataSandbox(options: { logger?: boolean }): FastifyInstance {
  const app = createSandboxApp({ providerId: "opendata", formatError: formatOpendataError, ...options });
  registerRoutes(app);
  return app;
}
