// Guards of the console API: a state-changing request must come from the console's own origin (Origin and
// Sec-Fetch-Site, when the browser sends them) and carry the session's CSRF token; every route but sign-in needs a
// live session, resolved from the cookie.
import { timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { GatewayError } from "../../core/errors.ts";
import type { ConsoleSession, Sessions } from "../../core/users/sessions.ts";
import { type CookieSettings, readCookie, setSessionCookie } from "./cookies.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** Set on console API routes once the session cookie resolved. */
    consoleSession: ConsoleSession | undefined;
  }
}

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);
const forbidden = (message: string) => new GatewayError("scope_denied", message);

/** Refuses cross-site state changes: the first line against CSRF, before the token. */
export function requireSameOrigin(request: FastifyRequest, publicUrl: string): void {
  if (safeMethods.has(request.method)) return;
  const site = request.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") {
    throw forbidden("Cross-site requests to the console API are refused");
  }
  const origin = request.headers.origin;
  if (origin === undefined) return;
  const consoleOrigin = new URL(publicUrl).origin;
  const allowed = new Set([consoleOrigin, `${request.protocol}://${request.headers.host ?? ""}`]);
  // Names the origin the console has, so that an operator behind a TLS proxy sees which setting to give.
  if (!allowed.has(origin)) {
    throw forbidden(
      `Requests from ${origin} to the console API are refused: the console's origin is ${consoleOrigin} ` +
        "(GATEWAY_PUBLIC_URL)",
    );
  }
}

function sameToken(expected: string, given: string | string[] | undefined): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function sessionGuard(sessions: Sessions, cookie: CookieSettings, publicUrl: string) {
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    requireSameOrigin(request, publicUrl);
    const token = readCookie(request, cookie.name);
    const session = await sessions.resolve(token);
    if (!session) {
      throw new GatewayError("unauthorized", "Sign in to the console first (no session, or it has ended)");
    }
    // Every tab of a browser shares the cookie: a tab opened under another user learns from this, on any answer
    // (the CSRF refusal of its token included), that its session is no longer the browser's, rather than showing this
    // user's data under the other's name.
    reply.header("x-console-user", session.userId);
    if (!safeMethods.has(request.method) && !sameToken(session.csrfToken, request.headers["x-csrf-token"])) {
      throw forbidden("Missing or wrong X-CSRF-Token header: reload the console and try again");
    }
    // The session's idle deadline moved: so does the cookie's, or the browser would drop it 12 hours after sign-in
    // however active its user (at most once a minute, as the deadline moves).
    if (token !== undefined && session.renewedForMs !== undefined) {
      setSessionCookie(reply, cookie, token, session.renewedForMs);
    }
    request.consoleSession = session;
  };
}
