// Small HTTP helpers of the sandbox OAuth server: urlencoded form bodies, cookies, HTML escaping, random tokens.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** Parses application/x-www-form-urlencoded bodies into a record; a repeated parameter is kept as the marker below. */
export const REPEATED = "\u0000repeated";

export function registerFormParser(app: FastifyInstance): void {
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: 64 * 1024 },
    (_request, body, done) => {
      const out: Record<string, string> = {};
      for (const [key, value] of new URLSearchParams(body as string)) {
        // RFC 6749 §3.1, §3.2: request parameters must not be included more than once.
        out[key] = key in out ? REPEATED : value;
      }
      done(null, out);
    },
  );
}

export const formOf = (request: FastifyRequest): Record<string, string> =>
  request.body !== null && typeof request.body === "object" ? (request.body as Record<string, string>) : {};

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

export function setCookie(reply: FastifyReply, name: string, value: string, maxAgeSeconds: number, path = "/"): void {
  reply.header(
    "set-cookie",
    `${name}=${encodeURIComponent(value)}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax`,
  );
}

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

export const randomToken = (prefix: string, bytes = 24): string =>
  `${prefix}${randomBytes(bytes).toString("base64url")}`;

export const sha256Base64Url = (text: string): string => createHash("sha256").update(text).digest("base64url");

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Pages of the authorization server are never cached, framed or leaked through Referer. */
export function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("referrer-policy", "no-referrer")
    .header("x-frame-options", "DENY")
    .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
    .send(html);
}
