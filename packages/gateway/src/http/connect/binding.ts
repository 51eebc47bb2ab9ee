// The browser binding of a connect flow: a random value the browser holds in a cookie of its own per session, named
// after the session's internal id (never its token), so that flows of several sessions in one browser never replace
// each other's binding. The start page also proposes a binding in its form: two Continue presses of one page (a
// double click) then bind the same value, and the one that loses the race can still give the browser its cookie.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ConnectSessionsTable } from "../../store/schema.ts";

const bindingPattern = /^[0-9A-Za-z]{32}$/;
const cookiePrefix = "gateway_connect_";

/** The binding cookie of `session` this browser sent, if any. */
export type BindingOf = (session: Pick<ConnectSessionsTable, "id">) => string | undefined;

export function bindingCookies(request: FastifyRequest): BindingOf {
  const cookies = new Map<string, string>();
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const index = part.indexOf("=");
    const name = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    if (index > 0 && name.startsWith(cookiePrefix) && bindingPattern.test(value)) cookies.set(name, value);
  }
  return (session) => cookies.get(cookiePrefix + session.id);
}

/** The binding the start page's form proposed (its hidden field), if the body carries a well-formed one. */
export function proposedBinding(body: unknown): string | undefined {
  const value = body instanceof URLSearchParams ? body.get("binding") : null;
  return value !== null && bindingPattern.test(value) ? value : undefined;
}

/** Sets (or, with maxAge 0, removes) the binding cookie of one session; other sessions' cookies stay as they are. */
export function setBindingCookie(
  reply: FastifyReply,
  session: Pick<ConnectSessionsTable, "id">,
  value: string,
  maxAgeSeconds: number,
  secure: boolean,
): void {
  const attributes = [
    `${cookiePrefix}${session.id}=${value}`,
    "Path=/connect",
    `Max-Age=${Math.max(0, maxAgeSeconds)}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(secure ? ["Secure"] : []),
  ];
  reply.header("set-cookie", attributes.join("; "));
}
