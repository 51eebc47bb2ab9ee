// Request bodies: uncompressed JSON objects only, at most 1 MiB, the raw bytes kept. Everything else is a clear 400.
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
      const encoding = encodingProblem(request);
      if (encoding) return done(encoding, undefined);
      try {
        done(
          null,
          secureJson.parse(raw.toString("utf8"), undefined, { protoAction: "error", constructorAction: "error" }),
        );
      } catch (error) {
        done(invalidRequest(`The body is not valid JSON: ${syntaxProblem(error as Error)}`), undefined);
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

/** A compressed body is refused by name, rather than parsed as JSON and reported as garbage. */
function encodingProblem(request: FastifyRequest) {
  const encoding = request.headers["content-encoding"];
  if (encoding === undefined || encoding.trim().toLowerCase() === "identity") return undefined;
  return invalidRequest(`Content-Encoding ${encoding} is not supported; send the body uncompressed`);
}

/** V8's message without the excerpt of the body it quotes (bytes of the caller's own, possibly binary). */
const syntaxProblem = (error: Error) => error.message.replace(/, ".*" is not valid JSON$/s, "");

/** The body as an operation's input: absent means `{}`, anything but an object is refused. */
export function bodyAsObject(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    const kind = body === null ? "null" : Array.isArray(body) ? "an array" : `a ${typeof body}`;
    throw invalidRequest(`The body must be a JSON object, not ${kind}`, [{ path: "", message: "must be object" }]);
  }
  return body as Record<string, unknown>;
}
