// Assembles the HTTP server: request ids, body parsing, the one error handler, the /v1 surface, docs and operator
// endpoints, and one log line and metric per request.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from "fastify";
import { invalidRequest } from "../core/errors.ts";
import { sequentialIds } from "../core/ids.ts";
import type { CoreServices } from "../core/services.ts";
import type { Registry } from "../providers/registry.ts";
import type { SharedUpstreamClient } from "../providers/upstream.ts";
import { createAuthenticator, type TokenResolver } from "./auth.ts";
import { bodyLimitBytes, registerBodyParsing } from "./body.ts";
import { docsRoutes } from "./docs.ts";
import {
  answerClientError,
  answerConnectMethod,
  answerFrameworkError,
  answerUnmetExpectation,
  registerErrorHandling,
} from "./error-handler.ts";
import { logSerializers } from "./log-serializers.ts";
import type { Metrics } from "./metrics.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { operatorRoutes, type Readiness } from "./operator.ts";
import { rateLimitHeaderNames } from "./rate-limit/index.ts";
import { sentMoreThanOnce } from "./raw-headers.ts";
import { requestLogObserver } from "./request-log.ts";
import { sendTimeoutWatch } from "./send-timeout.ts";
import "./types.ts";
import { v1Routes } from "./v1.ts";

export interface AppDeps {
  core: CoreServices;
  registry: Registry;
  metrics: Metrics;
  upstream(providerId: string): SharedUpstreamClient;
  logger: FastifyServerOptions["logger"];
  /** Whose X-Forwarded-For gives request.ip (config.trustProxy). */
  trustProxy?: boolean | number | string[];
  /** How long a request may take to arrive whole, headers and body (config.requestTimeoutMs); default 60 s. */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open (config.keepAliveTimeoutMs); default 72 s. */
  keepAliveTimeoutMs?: number;
  /**
   * How long an answer being written may wait for its client to take any of it (config.sendTimeoutMs); default 60 s.
   */
  sendTimeoutMs?: number;
  /** Whether a client's half-close (a FIN after its requests) still gets their answers (config.answerHalfClosed). */
  answerHalfClosed?: boolean;
  tokenResolvers?: TokenResolver[];
  /** Extensions of every /v1 request: rate limiting, idempotency. */
  v1Extensions?: ((app: FastifyInstance) => void | Promise<void>)[];
  /** Further surfaces (connect pages, inbound hooks, console), each a Fastify plugin. */
  plugins?: ((app: FastifyInstance) => Promise<void>)[];
  /** Further observers of every answered request (the console's usage counts), called after the log line. */
  observers?: RequestObserver[];
  /** Set when the node is told to stop: /readyz then says so. */
  readiness?: Readiness;
}

/** How a request ended, as every observer (log line, metrics, usage) sees it. */
export interface RequestOutcome {
  /** The answer's status; 499 when the client closed the connection before the answer (nginx's convention). */
  status: number;
  latencyMs: number;
}

/** Sees each request once it has ended; runs synchronously, so it must be cheap (a throw is logged). */
export type RequestObserver = (request: FastifyRequest, outcome: RequestOutcome) => void;

/** The status logged and counted for a request whose client closed the connection before it was answered. */
export const clientClosedRequest = 499;

/** Logger options with the gateway's error serializer added (a logger instance, or none, is used as it is). */
function withLogSerializers(logger: AppDeps["logger"]): Exclude<FastifyServerOptions["logger"], undefined> {
  if (logger === undefined || typeof logger === "boolean") return logger ?? false;
  return { ...logger, serializers: { ...logSerializers, ...logger.serializers } };
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const nextRequestId = sequentialIds(20);
  const trust = deps.trustProxy ?? false;
  const requestTimeout = deps.requestTimeoutMs ?? 60_000;
  const app = Fastify({
    // Fastify turns Node's request timeout off: a client that sends its headers and then its body a byte at a time,
    // or never, would hold its connection for ever. Past the timeout the request is answered 400 (clientError below)
    // and the connection closed. Node checks every connection's deadline on an interval: a quarter of the timeout.
    requestTimeout,
    keepAliveTimeout: deps.keepAliveTimeoutMs ?? 72_000,
    http: {
      requestTimeout,
      // Node takes the headers' own deadline (60 s by default) only when it is within the request's.
      headersTimeout: Math.min(60_000, requestTimeout),
      connectionsCheckingInterval: Math.max(250, Math.min(30_000, Math.floor(requestTimeout / 4))),
    },
    logger: withLogSerializers(deps.logger),
    // One line per request is written by the onResponse hook below, with the fields operators need.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "request_id" }),
    // request.log is the root logger itself: every line about a request names its request_id explicitly, and a child
    // logger per request would cost an allocation and a serialized binding on every call.
    childLoggerFactory: (logger) => logger,
    bodyLimit: bodyLimitBytes,
    // A hop count trusts that many proxies in front of the gateway (as proxy-addr counts hops).
    trustProxy: typeof trust === "number" ? (_address: string, hop: number) => hop < trust : trust,
    genReqId: () => `req_${nextRequestId()}`,
    // The router's refusals (a malformed percent-encoding, an over-long path segment) bypass the hooks: they are
    // received as the requests the onRequest hook sees are, and observed (logged, counted) once their answer is sent,
    // or as their client's (499) when it closes the connection first (pipelined behind an answer under way).
    frameworkErrors: (error, request, reply) => {
      received(request, reply);
      reply.raw.once("finish", () => observe(request, { status: reply.statusCode, latencyMs: reply.elapsedTime }));
      answerFrameworkError(error, request, reply);
    },
    clientErrorHandler: (error, socket) => {
      // A connection that sent nothing before the request timeout (a browser's preconnect, a TCP health check) made no
      // request: it is closed, with nothing answered, logged or counted.
      if ((error as NodeJS.ErrnoException).code === "ERR_HTTP_REQUEST_TIMEOUT" && socket.bytesRead === 0) {
        socket.destroy();
        return;
      }
      // A request whose body was still arriving (it stopped, or its chunked framing broke) is answered under its own
      // id and observed as the 400 it got, not as a client that went away (499) beside a request never read. One
      // whose client ended the connection before the body did went away: it is observed as 499 when it closes.
      const reply = replyBeingReceived(socket as Socket);
      const request = reply?.request;
      if (request === undefined) {
        const requestId = `req_${nextRequestId()}`;
        refusedUnread(requestId, answerClientError(error, socket, requestId));
      } else if (
        // Counted by the rate limiter before its body broke off, it has the limiter's headers, as every answer of it.
        answerClientError(error, socket, request.id, headersOf(reply!, rateLimitHeaderNames)) !== undefined &&
        (error as NodeJS.ErrnoException).code !== "HPE_INVALID_EOF_STATE"
      ) {
        observe(request, { status: 400, latencyMs: performance.now() - request.startedAt });
      }
    },
    // Shutting down (SIGTERM): new connections are refused and idle ones closed at once; the requests in flight are
    // answered with `Connection: close` (closeConnectionsAsTheyGoIdle), not refused with Fastify's own 503 body,
    // which is not the error envelope and which no code of it fits.
    return503OnClosing: false,
    forceCloseConnections: "idle",
    routerOptions: { ignoreTrailingSlash: false },
  });

  // Requests answered on the socket before they became requests (unparsable bytes, CONNECT) are logged and counted
  // too, with what they were told: neither their method nor their path is known, or safe, to log.
  function refusedUnread(requestId: string, message: string | undefined): void {
    if (message === undefined) return;
    app.log.info({ request_id: requestId, status: 400, error: message }, "request refused before it was read");
    deps.metrics.requests.inc({ provider: "-", operation: "unread", status: 400 });
  }

  // The reply of the request each raw request became, for the parser's errors that arrive while its body does. A property of
  // the raw request, which every request sets alike, costs less per request than an entry in a WeakMap.
  function replyBeingReceived(socket: Socket): FastifyReply | undefined {
    const received = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage?.req as
      | ReceivedMessage
      | undefined;
    return received && !received.complete ? received[replyOfRaw] : undefined;
  }

  const routes: { method: string; pattern: RegExp }[] = [];
  app.addHook("onRoute", (route) => {
    const source = route.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z_]+/g, "[^/]+");
    // Fastify adds a HEAD route beside each GET one, so HEAD is listed wherever GET is, as it is answered there.
    for (const method of [route.method].flat()) routes.push({ method, pattern: new RegExp(`^${source}$`) });
  });
  const allowedMethods = (path: string) => [
    ...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method)),
  ];

  app.decorateRequest("operationLabel", undefined);
  app.decorateRequest("observed", false);
  app.decorateRequest("startedAt", 0);
  app.decorateRequest("notExecuted", undefined);
  // Node answers an HTTP/1.1 request without Host itself, with a bare 400 (no envelope, no request id): the check is
  // made in the onRequest hook instead.
  (app.server as typeof app.server & { requireHostHeader: boolean }).requireHostHeader = false;
  // A client may half-close its connection once its requests are sent, and wait for the answers: a TCP FIN, which a
  // client that closed the connection outright (a timeout of its own, a proxy's) sends too. Node's server ends it
  // at once, as from a client that left: the requests not answered yet are logged 499, and those not begun are never
  // run. With GATEWAY_ANSWER_HALF_CLOSED the connection stays open for the answers to every request received whole,
  // the last of them closing it; an idle connection, or one whose request stopped short (the parser's error at the
  // FIN), is closed as before. A client that left is then seen only if writing an answer to it fails. Node's switch
  // for this, httpAllowHalfOpen, is not in its documentation and no option of Node or Fastify sets it, but its server
  // reads it (lib/_http_server.js, socketOnEnd, in Node 20 as in 26); half-close.test.ts fails if it stops working.
  (app.server as typeof app.server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = deps.answerHalfClosed ?? false;
  // Node gives CONNECT requests to a `connect` listener, and closes the connection without a word when there is none.
  app.server.on("connect", (_request, socket: Socket) => {
    const requestId = `req_${nextRequestId()}`;
    refusedUnread(requestId, answerConnectMethod(socket, requestId));
  });
  // Node answers an Expect other than 100-continue itself, with a bare 417, unless someone listens.
  app.server.on("checkExpectation", (_request, response: ServerResponse) => {
    const requestId = `req_${nextRequestId()}`;
    refusedUnread(requestId, answerUnmetExpectation(response, requestId));
  });
  closeConnectionsAsTheyGoIdle(app);
  // The send timeout: a connection whose client takes none of its answer for that long is destroyed. As when the
  // client closes the connection, its requests are then logged 499: the one whose answer was cut short (cutShort
  // below) and those pipelined behind it; this line names them all, the one under way first.
  const sendTimeout = sendTimeoutWatch(deps.sendTimeoutMs ?? 60_000, (socket, timeoutMs) => {
    const requests = [...((socket as Connection)[requestsInFlight] ?? [])].map((request) => request.id);
    app.log.info(
      { request_ids: requests, timeout_ms: timeoutMs },
      "connection closed: its client took none of the answer for the send timeout",
    );
    deps.metrics.sendTimeouts.inc();
    (socket as Connection)[destroyedBySendTimeout] = true;
  });
  app.server.on("connection", (socket: Socket) => sendTimeout.watch(socket));
  app.addHook("onReady", (done) => {
    sendTimeout.start();
    done();
  });
  app.addHook("onClose", (_app, done) => {
    sendTimeout.stop();
    done();
  });
  // The hooks are synchronous callbacks: no promise per request for work that never waits.
  /** A request as it arrives: timed, tracked on its connection until observed, and its answer after the one before. */
  function received(request: FastifyRequest, reply: FastifyReply): void {
    request.startedAt = performance.now();
    const raw = request.raw as ReceivedMessage;
    raw[replyOfRaw] = reply;
    const socket = raw.socket as Connection;
    unanswered(socket).add(request);
    raw[answerBefore] = socket[latestAnswer];
    socket[latestAnswer] = reply.raw;
  }
  app.addHook("onRequest", (request, reply, done) => {
    received(request, reply);
    reply.header("x-request-id", request.id);
    const raw = request.raw as ReceivedMessage;
    if (raw.headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1) {
      return done(invalidRequest("An HTTP/1.1 request needs a Host header"));
    }
    // Node keeps the first of two Host headers: which host was meant is unknown (RFC 9112 asks for a 400).
    if (sentMoreThanOnce(raw.rawHeaders, "host"))
      return done(invalidRequest("The Host header was sent more than once"));
    // HTTP/1.0 has no Transfer-Encoding: a proxy in front may have framed the body otherwise, so where the next request
    // starts is unknown. RFC 9112 §6.1: the connection closes after the answer.
    if (raw.httpVersionMinor === 0 && raw.headers["transfer-encoding"] !== undefined)
      reply.header("connection", "close");
    done();
  });
  // Node hands a pipelined request over as soon as its head is parsed, while the answer before it is still being made.
  // It runs (its body read, its handler, and the idempotency claim before it) only once that answer has gone out, and
  // not at all when that answer closed the connection (a refused body, a draining node): RFC 9112 §9.6 forbids
  // processing it, and its client, seeing no answer, would send again a request that had run. One at a time also keeps
  // the state-changing requests of a connection in its order. Its body is left unread until then, so that Node stops
  // reading the connection once its buffer is full: read and parsed, the bodies a client pipelines behind a slow answer
  // would be held in memory, as many as it sent. Node's own listener of the answer's end, added before this one, has
  // ended a connection the answer closed; a request left waiting is observed as its client's (499) when it closes.
  app.addHook("preParsing", (request, _reply, payload, done) => {
    const raw = request.raw as ReceivedMessage;
    const earlier = raw[answerBefore];
    raw[answerBefore] = undefined;
    const runIfOpen = () => {
      if (raw.socket?.writable) done(null, payload);
    };
    if (earlier === undefined || earlier.writableFinished) runIfOpen();
    else earlier.once("finish", runIfOpen);
  });
  const observers = [requestLogObserver(app.log), requestMetrics(deps.metrics), ...(deps.observers ?? [])];
  /** Each request once: when it is answered, or when its client closes the connection first. */
  function observe(request: FastifyRequest, outcome: RequestOutcome): void {
    if (request.observed) return;
    request.observed = true;
    (request.raw.socket as Connection | null)?.[requestsInFlight]?.delete(request);
    // A request refused before the pipelining gate (by the router, or by a hook before its body is read: 401, no Host)
    // never took its earlier answer: dropped here, or each answer would hold the one before it, and the connection,
    // through its latest, every request it was sent.
    (request.raw as ReceivedMessage)[answerBefore] = undefined;
    for (const observer of observers) {
      try {
        observer(request, outcome);
      } catch (error) {
        // The answer has gone out; a failing observer must cost neither the other observers nor the process.
        request.log.error({ err: error, request_id: request.id }, "a request observer failed");
      }
    }
  }
  app.addHook("onResponse", (request, reply, done) => {
    observe(request, {
      status: cutShort(request) ? clientClosedRequest : reply.statusCode,
      latencyMs: reply.elapsedTime,
    });
    done();
  });
  // Node reports an answer finished also when its connection failed while it was being written (the client reset it)
  // or the send timeout destroyed it: the client did not get it whole, as when it closes before the answer (499). The
  // hook runs as the answer finishes: a connection closed on purpose after a whole answer is not destroyed yet, nor
  // failed.
  function cutShort(request: FastifyRequest): boolean {
    const socket = request.raw.socket as Connection | null;
    return socket?.destroyed === true && (socket.errored !== null || socket[destroyedBySendTimeout] === true);
  }
  // A client that gives up (a timeout of its own) leaves no answer to observe: the requests of its connection not
  // answered yet are logged and counted when it closes, with the time each ran for. The operation may still finish, as
  // its idempotency record and upstream metrics show. The connection's close is the one signal of every case: Node
  // calls a request whose body was read whole not aborted, an answer written to a closed connection never finishes
  // (no onResponse), and one queued behind a pipelined request is never given the connection at all.
  function unanswered(socket: Connection): Set<FastifyRequest> {
    const requests = socket[requestsInFlight];
    if (requests !== undefined) return requests;
    const opened = new Set<FastifyRequest>();
    socket[requestsInFlight] = opened;
    socket.once("close", () => {
      for (const request of opened) {
        observe(request, { status: clientClosedRequest, latencyMs: performance.now() - request.startedAt });
      }
    });
    return opened;
  }

  registerBodyParsing(app);
  const masterKeys = deps.readiness?.masterKeys;
  registerErrorHandling(app, allowedMethods, masterKeys && ((error) => masterKeys.explain(error)));

  await app.register(operatorRoutes, {
    store: deps.core.store,
    metrics: deps.metrics,
    readiness: deps.readiness ?? { stopping: false },
  });
  await app.register(docsRoutes, { document: buildOpenApiDocument(deps.registry, deps.core.publicUrl) });
  await app.register(v1Routes, {
    registry: deps.registry,
    core: deps.core,
    upstream: deps.upstream,
    authenticate: createAuthenticator(deps.core.apiKeys, deps.tokenResolvers),
    extensions: deps.v1Extensions ?? [],
  });
  for (const plugin of deps.plugins ?? []) await app.register(plugin);
  return app;
}

/**
 * While the server closes (SIGTERM): Node closes the connections that are idle when it starts, but one busy then
 * would answer its request with keep-alive and then sit idle until the keep-alive timeout (72 s), holding up the end
 * of the drain. Every answer sent from then on says `Connection: close` (Node closes the connection after it, and the
 * client knows not to send another request on it), and the idle ones are closed every 100 ms until the server has
 * closed.
 */
function closeConnectionsAsTheyGoIdle(app: FastifyInstance): void {
  let sweep: NodeJS.Timeout | undefined;
  let closing = false;
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (closing) reply.header("connection", "close");
    done(null, payload);
  });
  app.addHook("preClose", (done) => {
    closing = true;
    sweep = setInterval(() => app.server.closeIdleConnections(), 100).unref();
    done();
  });
  app.addHook("onClose", (_app, done) => {
    clearInterval(sweep);
    done();
  });
}

function requestMetrics(metrics: Metrics): RequestObserver {
  return (request, { status, latencyMs }) => {
    const label = request.operationLabel;
    const provider = label?.provider ?? "-";
    const operation = label?.operation ?? request.routeOptions.url ?? "unmatched";
    metrics.requests.inc({ provider, operation, status });
    metrics.requestDuration.observe({ provider, operation }, latencyMs / 1000);
  };
}

/** The headers of `names` that the reply has so far, as name and value. */
function headersOf(reply: FastifyReply, names: readonly string[]): [string, string][] {
  const found: [string, string][] = [];
  for (const name of names) {
    const value = reply.getHeader(name);
    if (typeof value === "string") found.push([name, value]);
  }
  return found;
}

const replyOfRaw = Symbol("gateway reply");
const requestsInFlight = Symbol("requests in flight");
const latestAnswer = Symbol("latest answer");
const answerBefore = Symbol("answer before");
const destroyedBySendTimeout = Symbol("destroyed by the send timeout");
/** A connection, with its requests not observed yet, the answer to its latest request, and whether it was cut. */
type Connection = Socket & {
  [requestsInFlight]?: Set<FastifyRequest>;
  [latestAnswer]?: ServerResponse | undefined;
  [destroyedBySendTimeout]?: boolean;
};
type ReceivedMessage = IncomingMessage & {
  [replyOfRaw]?: FastifyReply;
  [answerBefore]?: ServerResponse | undefined;
};
