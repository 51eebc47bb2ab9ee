// The one place where errors become responses: every non-2xx answer is the gateway's error envelope, including those
// Fastify's router and Node's HTTP parser would otherwise answer in their own formats.

import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { SealedValueDoesNotOpen } from "../core/crypto/secret-box.ts";
import { GatewayError, invalidRequest } from "../core/errors.ts";
import { failurePage, sendPage } from "./connect/pages.ts";

export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    request_id: string;
    provider?: string;
    retryable: boolean;
    details?: unknown;
    fix?: string;
  };
}

export function errorEnvelope(error: GatewayError, requestId: string): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      request_id: requestId,
      ...(error.provider !== undefined && { provider: error.provider }),
      retryable: error.retryable,
      ...(error.details !== undefined && { details: error.details }),
      ...(error.fix !== undefined && { fix: error.fix }),
    },
  };
}

export function sendError(reply: FastifyReply, error: GatewayError): FastifyReply {
  // An error the provider answered comes from a call that reached it: its answer is kept under an Idempotency-Key
  // whatever its status (a provider's 400 too), unless the provider certainly executed nothing.
  if (error.notExecuted) reply.request.notExecuted = true;
  else if (error.provider !== undefined) reply.request.notExecuted ??= false;
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.retryAfterSeconds !== undefined) reply.header("retry-after", String(error.retryAfterSeconds));
  return reply.code(error.status).type("application/json; charset=utf-8").send(errorEnvelope(error, reply.request.id));
}

/** Translates what Fastify itself raises (body parsing, limits) into the gateway's codes. */
function fromFramework(error: FastifyError, request: FastifyRequest): GatewayError | undefined {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return invalidRequest("The request body is larger than the 1 MiB limit");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      // A header Fastify cannot read as one media type, such as a list ("application/json, text/plain").
      return invalidRequest(
        `Content-Type ${JSON.stringify(request.headers["content-type"] ?? "")} is not one media type; send application/json`,
      );
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return invalidRequest(error.message);
    default:
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        return invalidRequest(error.message);
      }
      return undefined;
  }
}

export function registerErrorHandling(
  app: FastifyInstance,
  allowedMethods: (url: string) => string[],
  /** Says what a sealed value that did not open means on this node (core/crypto/master-key-watch.ts). */
  explain?: (error: unknown) => Promise<unknown>,
): void {
  app.setErrorHandler((error: FastifyError | GatewayError, request: FastifyRequest, reply: FastifyReply) => {
    if (explain && error instanceof SealedValueDoesNotOpen) {
      return explain(error).then((explained) => answer(explained as FastifyError | GatewayError, request, reply));
    }
    return answer(error, request, reply);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    const allowed = allowedMethods(path);
    if (allowed.length > 0) {
      reply.header("allow", allowed.join(", "));
      return sendError(
        reply,
        invalidRequest(`${request.method} is not allowed on ${shownPath(path)}; use ${oneOf(allowed)}`),
      );
    }
    // Paths are exact: a trailing slash names no route, and the answer says which path was meant.
    const withoutSlash = path.replace(/\/+$/, "");
    const meant = withoutSlash !== path && allowedMethods(withoutSlash).includes(request.method);
    return sendError(
      reply,
      new GatewayError(
        "not_found",
        `No route ${request.method} ${shownPath(path)}${meant ? `; did you mean ${withoutSlash} (without the trailing slash)?` : ""}`,
      ),
    );
  });
}

/** A path as an answer repeats it: whole up to 200 characters (a made-up path may be 8 KB of the sender's choosing). */
const shownPath = (path: string) => (path.length <= 200 ? path : `${path.slice(0, 199)}…`);

function answer(error: FastifyError | GatewayError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const known = error instanceof GatewayError ? error : fromFramework(error, request);
  // A provider that failed (down, slow, an error answer): the answer says so to the client; the log says it to the
  // operator, who sees no answer, with the cause where there is one (a timeout, a refused connection).
  if (known?.code === "provider_unavailable") {
    request.log.warn(
      { ...(known.cause !== undefined && { err: known.cause }), request_id: request.id, provider: known.provider },
      `provider failure: ${known.message}`,
    );
  }
  // A 500 of the gateway's own (the store not reachable for /readyz, a write that could not be recorded): the
  // answer has its message only; the log has the error, its cause and where it was thrown (unless it was said once
  // already for every answer that carries it).
  if (known?.status === 500 && !known.logged) {
    request.log.error({ err: known, request_id: request.id }, `internal error: ${known.message}`);
  }
  if (known) return sendError(reply, known);
  request.log.error({ err: error, request_id: request.id }, "unhandled error");
  return sendError(reply, new GatewayError("internal_error", "The request failed inside the gateway"));
}

/** Fastify's `frameworkErrors`: what its router refuses before any route or hook (a malformed or over-long path). */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header("x-request-id", request.id);
  // Connect links are opened by people in browsers: a mistyped one answers the connect pages' HTML, not the envelope.
  if (error.code === "FST_ERR_BAD_URL" && /^\/connect(\/|$)/.test(request.url)) {
    const { status, html } = failurePage("unknown_link", "the provider");
    sendPage(reply, status, html);
    return;
  }
  // So are the console's pages: a mangled page path goes back to the console's first page (its API keeps the envelope).
  if (
    error.code === "FST_ERR_BAD_URL" &&
    /^\/console(\/|$)/.test(request.url) &&
    !request.url.startsWith("/console/api/")
  ) {
    reply.code(302).header("location", "/console").header("cache-control", "no-store").send();
    return;
  }
  switch (error.code) {
    case "FST_ERR_BAD_URL":
      sendError(reply, invalidRequest("The request path is not valid: it has a malformed percent-encoding"));
      return;
    case "FST_ERR_MAX_PARAM_LENGTH":
      sendError(
        reply,
        new GatewayError("not_found", "The request path has a segment over 100 characters: no route is named so"),
      );
      return;
    default:
      request.log.error({ err: error, request_id: request.id }, "router error");
      sendError(reply, new GatewayError("internal_error", "The request failed inside the gateway"));
  }
}

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused the bytes before there was a request (headers over
 * 16 KiB, a malformed request line or header, a request not received in time). Answered on the socket with the
 * envelope and a fresh request id, and the connection closed, as the parser cannot find where a next request starts.
 * Answers the message it sent, if any.
 */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Socket,
  requestId: string,
  headers: readonly (readonly [string, string])[] = [],
): string | undefined {
  if (error.code === "ECONNRESET" || socket.destroyed) return undefined;
  if (closeAfterEarlierAnswer(socket)) return undefined;
  const message =
    error.code === "HPE_HEADER_OVERFLOW"
      ? // Node's limit counts the request line with the headers: a long URL alone reaches it.
        "The request line and headers are larger than the 16 KiB limit"
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? "The request was not received completely in time"
        : "The request is not valid HTTP/1.1";
  const sent = writeRawError(socket, requestId, message, headers);
  socket.destroy(error);
  return sent;
}

/**
 * A request with an Expect other than 100-continue, which Node would answer itself with a bare 417: the envelope's
 * 400 instead (RFC 9110 §10.1.1 lets a server refuse it either way). Answers the message it sent.
 */
export function answerUnmetExpectation(response: ServerResponse, requestId: string): string {
  const message = "The Expect header asks for what the gateway does not do: send the request without it";
  const body = JSON.stringify(errorEnvelope(invalidRequest(message), requestId));
  // The same head as every answer written before a request was read: no Date, the connection closed.
  response.sendDate = false;
  response.shouldKeepAlive = false;
  response.writeHead(400, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "x-request-id": requestId,
    connection: "close",
  });
  response.end(body);
  return message;
}

/** A CONNECT request, which Node hands to no route: the gateway is not a proxy. Answers the message it sent. */
export function answerConnectMethod(socket: Socket, requestId: string): string | undefined {
  if (closeAfterEarlierAnswer(socket)) return undefined;
  const sent = writeRawError(socket, requestId, "The CONNECT method is not supported: the gateway is not a proxy");
  socket.destroy();
  return sent;
}

/**
 * A request earlier on this connection (pipelined), received whole, is still being answered: a 400 written now would
 * reach the client as that request's answer, and the answer itself would be lost. That answer goes out first, saying
 * the connection closes, and the connection then closes: the bytes after it get no answer (RFC 9112 §9.6; the client
 * may send them again on a new connection). Answers whether it was so. A request not received whole (its body stopped
 * arriving) is the one the error is about: it gets the 400.
 */
function closeAfterEarlierAnswer(socket: Socket): boolean {
  const pending = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!pending || pending.writableFinished || !pending.req?.complete) return false;
  pending.shouldKeepAlive = false;
  const close = () => socket.destroy();
  pending.once("finish", close);
  pending.once("close", close);
  return true;
}

/**
 * The envelope of a 400 written straight to the socket, for requests that never became Fastify requests or whose body
 * broke off; `headers` are those the request's answer already had (its RateLimit headers, once it was counted).
 */
function writeRawError(
  socket: Socket,
  requestId: string,
  message: string,
  headers: readonly (readonly [string, string])[] = [],
): string | undefined {
  if (!socket.writable) return undefined;
  const body = JSON.stringify(errorEnvelope(invalidRequest(message), requestId));
  socket.write(
    "HTTP/1.1 400 Bad Request\r\n" +
      "content-type: application/json; charset=utf-8\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\n` +
      headers.map(([name, value]) => `${name}: ${value}\r\n`).join("") +
      "connection: close\r\n\r\n" +
      body,
  );
  return message;
}

/** "A", "A or B", "A, B or C". */
const oneOf = (words: string[]) =>
  words.length <= 2 ? words.join(" or ") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
