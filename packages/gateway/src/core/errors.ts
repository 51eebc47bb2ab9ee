// The one error type of the gateway. Every failure is a GatewayError with a code from the catalogue below;
// only the HTTP error handler turns it into a response (see http/error-handler.ts).

/** The eight public codes and their fixed statuses, plus `internal_error` for 500. */
export const errorCatalogue = {
  invalid_request: { status: 400, retryable: false },
  unauthorized: { status: 401, retryable: false },
  scope_denied: { status: 403, retryable: false },
  not_found: { status: 404, retryable: false },
  conflict: { status: 409, retryable: false },
  provider_rejected: { status: 422, retryable: false },
  rate_limited: { status: 429, retryable: true },
  provider_unavailable: { status: 502, retryable: true },
  internal_error: { status: 500, retryable: false },
} as const;

export type ErrorCode = keyof typeof errorCatalogue;
export const errorCodes = Object.keys(errorCatalogue) as ErrorCode[];

/**
 * The most places one answer names for a problem found by walking a body (a NUL character, a lone surrogate): a body of
 * 1 MiB can hold 150,000 of them, an answer of 10 MB. (Their pointers are bounded too: http/body.ts.)
 */
export const maxProblems = 10_000;

export interface FieldProblem {
  /** JSON pointer into the request body, "" for the body itself. */
  path: string;
  message: string;
}

export interface GatewayErrorOptions {
  /** The provider the error originates from; set only for errors the upstream caused. */
  provider?: string;
  details?: unknown;
  fix?: string;
  /** Overrides the code's default (a provider 429 surfaces as a retryable 502, for instance). */
  retryable?: boolean;
  /** Seconds for a Retry-After header. */
  retryAfterSeconds?: number;
  headers?: Record<string, string>;
  /** The request certainly never reached the provider (connection refused, circuit open): nothing was executed,
   * so an Idempotency-Key stays free and a retry with it runs the operation. */
  notExecuted?: boolean;
  /** Said in the log already, once for every answer that carries it: the error handler does not log it again. */
  logged?: boolean;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly provider: string | undefined;
  readonly details: unknown;
  readonly fix: string | undefined;
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Record<string, string>;
  readonly notExecuted: boolean;
  readonly logged: boolean;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GatewayError";
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.provider = options.provider;
    this.details = options.details;
    this.fix = options.fix;
    this.retryable = options.retryable ?? errorCatalogue[code].retryable;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers ?? {};
    this.notExecuted = options.notExecuted ?? false;
    this.logged = options.logged ?? false;
  }
}

export const invalidRequest = (message: string, details?: FieldProblem[], fix?: string) =>
  new GatewayError("invalid_request", message, { ...(details && { details }), ...(fix && { fix }) });

/** A rule of an input that its schema cannot state (one field against another, a date against today), broken. */
export interface BrokenRule {
  /** The 400's message when this is the input's only problem. */
  message: string;
  problems: FieldProblem[];
  fix?: string;
}

export const brokenRuleError = (rule: BrokenRule) => invalidRequest(rule.message, rule.problems, rule.fix);

export const notFound = (message: string) => new GatewayError("not_found", message);

export const conflict = (message: string, details?: unknown) =>
  new GatewayError("conflict", message, details === undefined ? {} : { details });

export const isGatewayError = (value: unknown): value is GatewayError => value instanceof GatewayError;
