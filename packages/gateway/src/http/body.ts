// Request bodies: uncompressed UTF-8 JSON objects only, at most 1 MiB, the raw bytes kept. Everything else is a clear
// 400: bytes that are not UTF-8 (rather than characters silently replaced), and the NUL character, which PostgreSQL
// cannot store in text and which no field of any operation means, so that both stores answer alike.
import { isUtf8 } from "node:buffer";
import type { FastifyInstance, FastifyRequest } from "fastify";
import secureJson from "secure-json-parse";
import { invalidRequest } from "../core/errors.ts";
import { sentMoreThanOnce } from "./raw-headers.ts";

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
      const encoding = encodingProblem(request) ?? charsetProblem(request) ?? repeatedType(request);
      if (encoding) return done(encoding, undefined);
      if (!isUtf8(raw))
        return done(invalidRequest("The body is not valid UTF-8; send JSON encoded as UTF-8"), undefined);
      const text = raw.toString("utf8");
      let parsed: unknown;
      try {
        parsed = secureJson.parse(text, undefined, { protoAction: "error", constructorAction: "error" });
      } catch (error) {
        return done(invalidRequest(`The body is not valid JSON: ${syntaxProblem(error as Error)}`), undefined);
      }
      // A NUL can only be there escaped; the walk runs only when the text has the escape.
      const withNul = text.includes("\\u0000") ? pathsWithNul(parsed, "") : [];
      if (withNul.length > 0) {
        return done(
          invalidRequest(
            "The body contains the NUL character (\\u0000), which no field accepts",
            withNul.map((path) => ({ path, message: "must not contain the NUL character (\\u0000)" })),
          ),
          undefined,
        );
      }
      done(null, parsed);
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
  // Node decodes chunked framing and nothing else: another transfer coding (gzip, chunked) would be read as plain bytes.
  const transfer = request.headers["transfer-encoding"];
  if (transfer !== undefined && transfer.trim().toLowerCase() !== "chunked") {
    return invalidRequest(
      `Transfer-Encoding ${transfer} is not supported; send the body uncompressed (chunked is fine)`,
    );
  }
  const encoding = request.headers["content-encoding"];
  if (encoding === undefined || encoding.trim().toLowerCase() === "identity") return undefined;
  return invalidRequest(`Content-Encoding ${encoding} is not supported; send the body uncompressed`);
}

function repeatedType(request: FastifyRequest) {
  if (!sentMoreThanOnce(request.raw.rawHeaders, "content-type")) return undefined;
  return invalidRequest("Content-Type was sent more than once; send it once, as application/json");
}

/** JSON is UTF-8 (RFC 8259): a charset parameter naming anything else describes bytes this parser would misread. */
function charsetProblem(request: FastifyRequest) {
  const type = request.headers["content-type"] ?? "";
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type)?.[1]?.toLowerCase();
  if (charset === undefined || charset === "utf-8" || charset === "utf8") return undefined;
  return invalidRequest(`Content-Type charset ${charset} is not supported; send JSON encoded as UTF-8`);
}

/** JSON pointers of the strings (values or member names) that contain U+0000. */
function pathsWithNul(value: unknown, at: string): string[] {
  if (typeof value === "string") return value.includes("\u0000") ? [at] : [];
  if (value === null || typeof value !== "object") return [];
  const found: string[] = [];
  for (const [key, member] of Object.entries(value)) {
    const path = `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    if (key.includes("\u0000")) found.push(path);
    found.push(...pathsWithNul(member, path));
  }
  return found;
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
