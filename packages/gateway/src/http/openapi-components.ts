// The parts of the OpenAPI document that every operation refers to: the success envelope's meta and pagination, the
// error envelope, the bearer scheme, the Idempotency-Key parameter and the response headers.
const retryAfter = {
  description: "Seconds to wait before retrying (an integer, at least 1).",
  schema: { type: "integer", minimum: 1 },
};

export const sharedSchemas: Record<string, unknown> = {
  Meta: {
    type: "object",
    required: ["source", "fetched_at"],
    properties: {
      source: { type: "string", description: "Identifier of the provider that answered." },
      fetched_at: { type: "string", format: "date-time", description: "Time the data was fetched." },
    },
  },
  Pagination: {
    oneOf: [
      { type: "null" },
      {
        type: "object",
        required: ["next_cursor", "has_more"],
        properties: { next_cursor: { type: ["string", "null"] }, has_more: { type: "boolean" } },
      },
    ],
  },
  ErrorEnvelope: {
    type: "object",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["code", "message", "request_id", "retryable"],
        additionalProperties: true,
        properties: {
          code: { type: "string", description: "Stable identifier: branch on it, never on the message." },
          message: { type: "string", description: "Human-readable; never to be parsed." },
          request_id: { type: "string", description: "Request identifier for support (also X-Request-Id)." },
          provider: { type: "string", description: "Present only when the error comes from the provider." },
          retryable: { type: "boolean", description: "True when retrying with backoff can succeed." },
          details: { description: "For invalid_request: a list of {path, message}." },
          fix: { type: "string", description: "What to change to make the request succeed." },
        },
      },
    },
  },
};

export const sharedComponents = {
  securitySchemes: {
    bearerAuth: {
      type: "http",
      scheme: "bearer",
      description: "An API key `gwk_…` (or a console delegation token `gwd_…`).",
    },
  },
  parameters: {
    IdempotencyKey: {
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "Makes a retry safe: the first answer is replayed for 24 hours. The key is 1 to 255 printable ASCII characters, " +
        'sent as they are or as an RFC 9651 quoted string (`"…"`, with `\\"` and `\\\\` escapes), so up to 512 ' +
        "characters as sent.",
      // The header as sent: a quoted key of 255 characters, each escaped, is 512 long.
      schema: { type: "string", minLength: 1, maxLength: 512, pattern: "^[\\x20-\\x7E]+$" },
    },
  },
  headers: {
    XRequestId: { description: "The request's identifier, as in error.request_id.", schema: { type: "string" } },
    RateLimitPolicy: {
      description: 'The API key\'s quota: `"default";q=<per minute>;w=60`.',
      schema: { type: "string" },
    },
    RateLimit: {
      description: 'What the key may send now: `"default";r=<requests left>;t=<seconds until the full burst>`.',
      schema: { type: "string" },
    },
    WwwAuthenticate: {
      description: 'The scheme to authenticate with: `Bearer realm="gateway"`.',
      required: true,
      schema: { type: "string" },
    },
    RetryAfter: retryAfter,
    RetryAfterAlways: { ...retryAfter, required: true },
    IdempotentReplayed: {
      description: "`true` on an answer replayed for a repeated Idempotency-Key; absent otherwise.",
      schema: { type: "string", enum: ["true"] },
    },
  },
};
