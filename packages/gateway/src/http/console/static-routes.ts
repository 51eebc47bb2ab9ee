// Serves the built console (packages/console/dist): hashed assets under /console/assets/ with a long cache, and the
// single page itself for /console, every client-side route below it, and /demo. Without a build it says how to make one.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply } from "fastify";

/**
 * The console's build: packages/console/dist in a checkout, found through the workspace package so that it resolves
 * from the sources and the bundle; in the published package, which has no console package beside it, the copy its
 * prepack put beside the bundle (dist/console).
 */
export const defaultConsoleDir = (() => {
  try {
    return path.join(
      path.dirname(createRequire(import.meta.url).resolve("@provider-gateway/console/package.json")),
      "dist",
    );
  } catch {
    return path.join(path.dirname(fileURLToPath(import.meta.url)), "console");
  }
})();

// Swagger UI (try-it-out) sets inline styles and loads its images as data: URLs; nothing else is allowed.
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const notBuilt = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Console not built</title>
<body style="font-family:system-ui;max-width:40rem;margin:4rem auto;padding:0 1rem">
<h1>The console has not been built</h1>
<p>Run <code>npm run build -w @provider-gateway/console</code> (or <code>npm start</code>, which builds it) and reload.</p>`;

export function consoleStaticRoutes(options: { dir?: string } = {}) {
  const dir = options.dir ?? defaultConsoleDir;
  return async (app: FastifyInstance) => {
    const assets = path.join(dir, "assets");
    if (fs.existsSync(assets)) {
      await app.register(fastifyStatic, {
        root: assets,
        prefix: "/console/assets/",
        decorateReply: false,
        index: false,
        immutable: true,
        maxAge: "365d",
      });
    }

    const page = async (reply: FastifyReply) => {
      reply
        .header("content-security-policy", contentSecurityPolicy)
        .header("x-frame-options", "DENY")
        .header("x-content-type-options", "nosniff")
        .header("referrer-policy", "same-origin")
        .header("cache-control", "no-cache")
        .type("text/html; charset=utf-8");
      try {
        return reply.send(await fs.promises.readFile(path.join(dir, "index.html")));
      } catch {
        return reply.code(503).send(notBuilt);
      }
    };

    for (const url of ["/console", "/console/", "/demo", "/demo/"])
      app.get(url, async (_request, reply) => page(reply));
    app.get("/console/*", async (request, reply) => {
      const url = request.url.split("?")[0] ?? "";
      // Not a page: answered as any other path without a GET route (404, or 400 with Allow where it takes POST).
      if (url.startsWith("/console/api/") || url.startsWith("/console/assets/")) return reply.callNotFound();
      return page(reply);
    });
  };
}
