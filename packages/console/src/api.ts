// The console's one way to the server: the console API (session cookie + CSRF token) and the public demo API.
// Every failure becomes an ApiError carrying the gateway's error envelope (code, message, request id, details).

export interface Session {
  user: { id: string; email: string };
  account_id: string;
  csrf_token: string;
  expires_at: string;
}

export interface Envelope<T> {
  data: T;
  meta?: { source: string; fetched_at: string };
  pagination?: { next_cursor: string | null; has_more: boolean } | null;
}

export interface FieldProblem {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: FieldProblem[] | undefined,
    readonly retryAfter: string | null,
  ) {
    super(message);
  }
}

let csrfToken: string | undefined;
let userId: string | undefined;
let onSignedOut: (() => void) | undefined;
let onUserChanged: (() => void) | undefined;
/** Set once an answer came back for another user: every later one is refused too, until the page is bound again. */
let switching = false;

/**
 * The session this page works under. The cookie is the browser's, shared by every tab: when another tab signs in as
 * someone else, this page's requests come back marked with that user (`X-Console-User`), and `userChanged` is called
 * instead of the answer being shown under this page's user.
 */
export function bindSession(
  session: Session | undefined,
  signedOut: () => void,
  userChanged: () => void = () => {},
): void {
  csrfToken = session?.csrf_token;
  userId = session?.user.id;
  onSignedOut = signedOut;
  onUserChanged = userChanged;
  switching = false;
}

async function request<T>(method: string, path: string, body?: unknown): Promise<Envelope<T>> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: {
        accept: "application/json",
        ...(body !== undefined && { "content-type": "application/json" }),
        ...(csrfToken && method !== "GET" && { "x-csrf-token": csrfToken }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(
      0,
      "network_error",
      "The gateway could not be reached. Check your connection and retry.",
      null,
      undefined,
      null,
    );
  }
  const answeredFor = response.headers.get("x-console-user");
  // The session's own route is how a page learns whose the session is: its answer is never another user's data.
  if (userId !== undefined && answeredFor !== null && answeredFor !== userId && path !== "/console/api/session") {
    // The answers of requests already under way when the first came back are discarded the same way; the page is
    // told once.
    if (!switching) {
      switching = true;
      onUserChanged?.();
    }
    throw new ApiError(
      0,
      "session_changed",
      "Another tab signed in as someone else; this page now shows that session.",
      response.headers.get("x-request-id"),
      undefined,
      null,
    );
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (response.ok) {
    // Every 2xx of the gateway is its envelope: anything else (a proxy's or a portal's page) is no answer to read.
    if (typeof parsed === "object" && parsed !== null && "data" in parsed) return parsed as Envelope<T>;
    throw new ApiError(
      response.status,
      "unreadable_answer",
      `The answer (HTTP ${response.status}) is not the gateway's: something between the console and the gateway answered it`,
      response.headers.get("x-request-id"),
      undefined,
      null,
    );
  }
  const error = (parsed as { error?: { code?: string; message?: string; request_id?: string; details?: unknown } })
    ?.error;
  const failure = new ApiError(
    response.status,
    error?.code ?? `http_${response.status}`,
    error?.message ?? `The gateway answered ${response.status}`,
    error?.request_id ?? response.headers.get("x-request-id"),
    Array.isArray(error?.details) ? (error.details as FieldProblem[]) : undefined,
    response.headers.get("retry-after"),
  );
  if (response.status === 401 && path !== "/console/api/session") onSignedOut?.();
  // The same user signed in again in another tab: the session, and its CSRF token, are new. The page reads the session
  // again (its pages with it) rather than failing every action until it is reloaded.
  const staleToken =
    response.status === 403 && failure.message.startsWith("Missing or wrong X-CSRF-Token") && csrfToken !== undefined;
  if (staleToken && path !== "/console/api/session" && !switching) {
    switching = true;
    onUserChanged?.();
  }
  throw failure;
}

export const api = {
  session: () => request<Session>("GET", "/console/api/session"),
  signIn: (email: string, password: string) => request<Session>("POST", "/console/api/session", { email, password }),
  signOut: () => request<{ signed_out: true }>("DELETE", "/console/api/session"),
  catalogue: () => request<Catalogue>("GET", "/console/api/catalogue"),
  usage: (window: "hour" | "day") => request<UsageReport>("GET", `/console/api/usage?window=${window}`),
  mintToken: (input: { scopes?: string[]; connection?: string | null }) =>
    request<DelegationToken>("POST", "/console/api/delegation-tokens", input),
  /** Runs a platform operation for the signed-in account: the same validation and errors as /v1/platform. */
  operation: <T>(operation: string, input: Record<string, unknown> = {}) =>
    request<T>("POST", `/console/api/operations/platform/${operation}`, input),
  demoOperations: () => request<DemoListing>("GET", "/demo/api/operations"),
  demoRun: (provider: string, operation: string, input: unknown) =>
    request<unknown>("POST", `/demo/api/run/${provider}/${operation}`, input),
};

export interface CatalogueOperation {
  id: string;
  summary: string;
  description: string | null;
  auth_mode: "none" | "credentials";
  input_schema: JsonSchema;
  example: { input: unknown; output: unknown };
}

export interface Catalogue {
  providers: { id: string; title: string; description: string; operations: CatalogueOperation[] }[];
}

export interface JsonSchema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  const?: unknown;
}

export interface DelegationToken {
  token: string;
  scopes: string[];
  expires_at: string;
  connection: string | null;
}

export interface UsageReport {
  window: "hour" | "day";
  from: string;
  to: string;
  bucket_seconds: number;
  totals: { requests: number; errors: number; p50_ms: number | null; p95_ms: number | null };
  series: { start: string; requests: number; errors: number }[];
  errors_by_code: { code: string; status: number; count: number }[];
  operations: {
    provider_id: string;
    operation_id: string;
    requests: number;
    errors: number;
    p50_ms: number | null;
    p95_ms: number | null;
  }[];
}

export interface DemoListing {
  rate_limit: { perMinute: number; burst: number };
  operations: {
    provider_id: string;
    provider_title: string;
    operation_id: string;
    summary: string;
    description: string | null;
    example_input: unknown;
  }[];
}
