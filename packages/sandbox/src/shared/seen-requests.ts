// What every sandbox was asked, for tests over real HTTP: `GET /_sandbox/requests` lists the latest requests (method,
// path without its query, and the X-Request-Id header as received, null when absent), oldest first; `DELETE
// /_sandbox/requests` forgets them. The test controls under /_sandbox/ are not listed.
import type { FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";

export interface SeenRequest {
  method: string;
  path: string;
  request_id: string | null;
}

/** How many requests are kept: the oldest is forgotten past it. */
export const seenRequestsKept = 1000;

const controlPrefix = "/_sandbox/";

const seenRequests: FastifyPluginAsync = async (app) => {
  let seen: SeenRequest[] = [];

  app.addHook("onRequest", async (request) => {
    const path = request.url.split("?")[0] ?? "/";
    if (path.startsWith(controlPrefix)) return;
    const header = request.headers["x-request-id"];
    seen.push({ method: request.method, path, request_id: header === undefined ? null : String(header) });
    if (seen.length > seenRequestsKept) seen.shift();
  });

  app.get("/_sandbox/requests", async () => ({ requests: seen }));

  app.delete("/_sandbox/requests", async () => {
    const cleared = seen.length;
    seen = [];
    return { cleared };
  });
};

export const seenRequestsPlugin = fp(seenRequests, { name: "sandbox-seen-requests", fastify: "5.x" });
