// Request bodies: JSON objects only, at most 1 MiB, the raw bytes kept. Everything else is a clear 400.
import type { FastifyInstance, FastifyRequest } from "fastify";
import secureJson from "secure-json-parse";
import { invalidRequest } from "../core/errors.ts";

export const bodyLimitBytes = 1024 * 1024;

export function registerBodyParsing(app: FastifyInstance): void {
  app.decorateRequest("rawBody", undefined);
  app.removeAllContentTypeParsers();

  app.addContentTypeParser(
    "application/json",
    { parseAs: "buffer", bodyLimit: bodyLimitBytes },
    (request, body, done) => {
      const raw = body as Buffer;
      (request as FastifyRequest).rawBody = raw;
      if (raw.length === 0) return done(null, undefined);
      try {
        done(
          null,
          secureJson.parse(raw.toString("utf8"), undefined, { protoAction: "error", constructorAction: "error" }),
        );
      } catch (error) {
        done(invalidRequest(`The body is not valid JSON: ${(error as Error).message}`), undefined);
      }
    },
  );

  // Any other media type: an empty body is fine (operations without input), anything else is refused.
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: bodyLimitBytes }, (request, body, done) => {
    const raw = body as Buffer;
    (request as FastifyRequest).rawBody = raw;
    if (raw.length === 0) return done(null, undefined);
    const type = request.headers["content-type"];
    done(
      invalidRequest(
        type
          ? `Content-Type ${type} is not supported; send application/json`
          : "A body needs Content-Type: application/json",
      ),
      undefined,
    );
  });
}

/** The body as an operation's input: absent means `{}`, anything but an object is refused. */
export function bodyAsObject(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    const kind = body === null ? "null" : Array.isArray(body) ? "an array" : `a ${typeof body}`;
    throw invalidRequest(`The body must be a JSON object, not ${kind}`, [{ path: "", message: "must be object" }]);
  }
  return body as Record<string, unknown>;
}
