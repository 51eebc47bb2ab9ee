// The shapes of the platform operations' answers, as the console reads them (connection ids arrive as handles).

export interface ApiKey {
  id: string;
  name: string;
  key_prefix: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface Connection {
  /** An opaque handle: the console never sees a connection id. */
  id: string;
  provider_id: string;
  external_ref: string;
  status: "active" | "needs_reauth" | "deleted";
  scopes: string[];
  created_at: string;
  updated_at: string;
  last_refreshed_at: string | null;
}

export interface ConnectSession {
  token: string;
  connect_url: string;
  expires_at: string;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  event_types: string[];
  created_at: string;
  updated_at: string;
  previous_secret_expires_at: string | null;
}

export interface GatewayEvent {
  id: string;
  type: string;
  created_at: string;
  data: { object: Record<string, unknown> };
}

export interface DeliveryAttempt {
  attempt: number;
  attempted_at: string;
  url: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
}

export interface Delivery {
  id: string;
  event_id: string;
  status: "pending" | "succeeded" | "failed";
  attempt_count: number;
  created_at: string;
  next_attempt_at: string | null;
  deadline_at: string;
  completed_at: string | null;
  attempts: DeliveryAttempt[];
}
