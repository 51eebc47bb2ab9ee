// Whatever reaches /connect/ without being one of its pages still answers an HTML page, never the API's envelope:
// bodies are read as form fields (the start page posts its own) or ignored, an address that is no page answers "This
// connect link is not valid" (404), a page asked with another method 405 with Allow, a body over 16 KiB 413, one that
// cannot be read otherwise 400.
// Registered in the connect routes' own plugin, so none of this reaches /v1.
import type { FastifyError, FastifyInstance, FastifyRequest } from "fastify";
import { errorPage, failurePage, sendPage, unusableRequestPage } from "./pages.ts";

// The start page's form is a few dozen bytes; nothing a browser posts here is larger.
const bodyLimit = 16 * 1024;

/** The methods a path under /connect/ takes: the callback GET, a link (one segment) GET and POST. */
function methodsOf(path: string): string[] {
  if (path === "/connect/callback") return ["GET", "HEAD"];
  return /^\/connect\/[^/]+$/.test(path) ? ["GET", "HEAD", "POST"] : [];
}

export function registerConnectFallbacks(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit }, (request, body, done) => {
    const form = /^application\/x-www-form-urlencoded\s*(;|$)/i.test(request.headers["content-type"] ?? "");
    done(null, form ? new URLSearchParams(body as string) : undefined);
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply) => {
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return sendPage(reply, error.statusCode, unusableRequestPage());
    }
    request.log.error({ err: error, request_id: request.id }, "connect page failed");
    return sendPage(reply, 500, errorPage());
  });

  // A wildcard route rather than a not-found handler: the router refuses a segment over 100 characters before it
  // would consult one, but still tries a wildcard sibling of the link's route.
  const answer = async (request: FastifyRequest, reply: Parameters<typeof sendPage>[0]) => {
    const path = request.url.split("?")[0] ?? "";
    const methods = methodsOf(path);
    if (methods.length > 0 && !methods.includes(request.method)) {
      return sendPage(reply.header("allow", methods.join(", ")), 405, unusableRequestPage());
    }
    const { status, html } = failurePage("unknown_link", "the provider");
    return sendPage(reply, status, html);
  };
  // Logged by their path, which the request log cuts any secret-shaped segment of.
  for (const url of ["/connect", "/connect/*"]) app.all(url, answer);
}
