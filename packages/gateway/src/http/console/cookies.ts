// The console's session cookie: HttpOnly, SameSite=Lax, Path=/, and Secure with the `__Host-` prefix when the
// gateway's public URL is https (a cookie that then cannot be set by a subdomain or over plain HTTP).
import type { FastifyReply, FastifyRequest } from "fastify";

export interface CookieSettings {
  name: string;
  secure: boolean;
}

export const cookieSettings = (publicUrl: string): CookieSettings => {
  const secure = publicUrl.startsWith("https://");
  return { name: secure ? "__Host-gateway_session" : "gateway_session", secure };
};

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

export function setSessionCookie(reply: FastifyReply, settings: CookieSettings, value: string, maxAgeMs: number) {
  const attributes = [
    `${settings.name}=${value}`,
    "Path=/",
    `Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(settings.secure ? ["Secure"] : []),
  ];
  reply.header("set-cookie", attributes.join("; "));
}

export const clearSessionCookie = (reply: FastifyReply, settings: CookieSettings) =>
  setSessionCookie(reply, settings, "", 0);
