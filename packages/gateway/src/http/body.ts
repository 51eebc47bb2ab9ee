// Request bodies: uncompressed UTF-8 JSON objects only, at most 1 MiB, the raw bytes kept. Everything else is a clear
// 400: bytes that are not UTF-8 (rather than characters silently replaced), and the NUL character, which PostgreSQL
// cannot store in text and which no field of any operation means, so that both stores answer alike.
import { isUtf8 } from "node:buffer";
import type { FastifyInstance, FastifyRequest } from "fastify";
import secureJson from "secure-json-parse";
import { invalidRequest } from "../core/errors.ts";
import { problemsWhere, unstorableText } from "../core/json-text.ts";
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
      if (raw.length === 0 || noRoute(request)) return done(null, undefined);
      const encoding = encodingProblem(request) ?? charsetProblem(request) ?? repeatedType(request);
      if (encoding) return done(encoding, undefined);
      if (!isUtf8(raw))
        return done(invalidRequest("The body is not valid UTF-8; send JSON encoded as UTF-8"), undefined);
      const text = raw.toString("utf8");
      let parsed: unknown;
      try {
        parsed = secureJson.parse(text, undefined, { protoAction: "error", constructorAction: "error" });
      } catch (error) {
        return done(unparsable(text, error as Error), undefined);
      }
      // A NUL or a lone surrogate can only be there escaped: the walks run only when the text has such an escape.
      const refused = unstorableText(parsed, "body", {
        nul: text.includes("\\u0000"),
        loneSurrogate: /\\u[dD][89a-fA-F]/.test(text),
      });
      if (refused) return done(refused, undefined);
      // A number past ±1.8e308 parses as ±Infinity, which passes a schema's integer check and any minimum: refused
      // where it is.
      const infinite = mayHoldInfinity(text) ? problemsWhere(parsed, infiniteProblem) : [];
      if (infinite.length > 0) {
        return done(invalidRequest("The body contains a number too large to represent", infinite), undefined);
      }
      done(null, parsed);
    },
  );

  // Any other media type: an empty body is fine (operations without input), anything else is refused.
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: bodyLimitBytes }, (request, body, done) => {
    const raw = body as Buffer;
    (request as FastifyRequest).rawBody = raw;
    if (raw.length === 0 || noRoute(request)) return done(null, undefined);
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

/**
 * A request to no route (an unknown path, a method the path does not take) is answered for that, whatever its body:
 * the not-found handler's 404, or 400 with Allow, says more than a complaint about a body nothing would read.
 */
const noRoute = (request: FastifyRequest) => request.is404;

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
  // An empty list of codings (RFC 9110 §8.4) is no coding at all.
  const coding = encoding?.trim().toLowerCase();
  if (coding === undefined || coding === "" || coding === "identity") return undefined;
  return invalidRequest(`Content-Encoding ${encoding} is not supported; send the body uncompressed`);
}

function repeatedType(request: FastifyRequest) {
  if (!sentMoreThanOnce(request.raw.rawHeaders, "content-type")) return undefined;
  return invalidRequest("Content-Type was sent more than once; send it once, as application/json");
}

/** JSON is UTF-8 (RFC 8259): a charset parameter naming anything else describes bytes this parser would misread. */
function charsetProblem(request: FastifyRequest) {
  const type = request.headers["content-type"] ?? "";
  const charsets = [...type.matchAll(/;\s*charset\s*=\s*"?([^";\s]*)/gi)].map((match) => match[1]?.toLowerCase());
  if (charsets.length > 1) {
    return invalidRequest("Content-Type names a charset more than once; send application/json, or with charset=utf-8");
  }
  const charset = charsets[0];
  if (charset === undefined || charset === "utf-8" || charset === "utf8") return undefined;
  if (charset === "") {
    return invalidRequest("Content-Type has an empty charset; send application/json, or with charset=utf-8");
  }
  return invalidRequest(`Content-Type charset ${charset} is not supported; send JSON encoded as UTF-8`);
}

/**
 * The members secure-json-parse refuses, since code that copies them into an object would change its prototype:
 * "__proto__", and "constructor" holding "prototype".
 */
const prototypeProblem = (name: string | undefined, member: unknown) => {
  if (name === "__proto__") return 'must not be named "__proto__"';
  const holdsPrototype = typeof member === "object" && member !== null && Object.hasOwn(member, "prototype");
  return name === "constructor" && holdsPrototype ? 'must not be named "constructor" and hold "prototype"' : undefined;
};

/** Why a body secure-json-parse refused is refused: JSON's syntax, or members that could change a prototype. */
function unparsable(text: string, error: Error) {
  if (error.message === "Object contains forbidden prototype property") {
    // The text is JSON (secure-json-parse refuses only after parsing it): name every member it refused.
    const problems = problemsWhere(JSON.parse(text), prototypeProblem);
    return invalidRequest(
      'The body has a member named "__proto__", or "constructor" holding "prototype", which no field accepts',
      problems,
    );
  }
  return invalidRequest(`The body is not valid JSON: ${syntaxProblem(error)}`);
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

/**
 * Whether the text has what only a number too large to represent needs: an exponent of 3 digits or more, or a run of
 * 210 digits (an integer part of 210 digits times 1e99, the most an exponent of 2 digits gives, reaches 1e308 and
 * past; 209 digits never do). Linear in the text (a pattern such as \d{210} would try 210 characters at every digit:
 * a quarter of a second for 1 MiB of shorter runs).
 */
function mayHoldInfinity(text: string): boolean {
  if (/[eE]\+?\d\d\d/.test(text)) return true;
  if (text.length < infinityDigits) return false;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    run = code >= 48 && code <= 57 ? run + 1 : 0;
    if (run === infinityDigits) return true;
  }
  return false;
}

const infinityDigits = 210;

/** A number JSON.parse could only make ±Infinity of. */
const infiniteProblem = (_name: string | undefined, member: unknown) =>
  typeof member === "number" && !Number.isFinite(member)
    ? "is too large: numbers must lie within ±1.7976931348623157e308"
    : undefined;
