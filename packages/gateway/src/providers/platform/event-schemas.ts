// Schemas shared by the webhook and event platform operations: the event envelope, endpoint, delivery and attempt.
import { Type } from "@sinclair/typebox";
import { eventTypes } from "../../core/events/event-types.ts";
import { Nullable } from "../schemas.ts";

const DateTime = Type.String({ format: "date-time" });

/** One event type; `enum` keeps a refused value to one clear problem in `details`. */
export const EventTypeName = Type.Unsafe<string>({
  type: "string",
  enum: [...eventTypes],
  description: "An event type.",
});

export const EventEnvelope = Type.Object(
  {
    id: Type.String({ description: "`evt_…`, the Gateway-Event-Id header; stable across redeliveries." }),
    type: Type.String({ description: "`<domain>.<event>`." }),
    created_at: DateTime,
    data: Type.Object(
      { object: Type.Record(Type.String(), Type.Unknown(), { description: "The resource as the API returns it." }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    event_types: Type.Array(Type.String()),
    created_at: DateTime,
    updated_at: DateTime,
    previous_secret_expires_at: Nullable(DateTime),
  },
  { additionalProperties: false },
);

export const WebhookSecret = Type.String({
  pattern: "^whsec_[A-Za-z0-9_-]{32}$",
  description: "The signing secret, shown this once.",
});

export const DeliveryAttempt = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1 }),
    attempted_at: DateTime,
    url: Type.String(),
    status_code: Nullable(Type.Integer()),
    latency_ms: Type.Integer({ minimum: 0 }),
    error: Nullable(Type.String()),
    response_body: Nullable(Type.String({ description: "The first 1 KiB of the response." })),
  },
  { additionalProperties: false },
);

export const Delivery = Type.Object(
  {
    id: Type.String(),
    event_id: Type.String(),
    status: Type.Union([Type.Literal("pending"), Type.Literal("succeeded"), Type.Literal("failed")]),
    attempt_count: Type.Integer({
      minimum: 0,
      description:
        "The attempts recorded (the length of `attempts`). One whose node stopped before recording its outcome is " +
        "not among them, though the receiver may have had it: the next attempt then carries a higher number.",
    }),
    created_at: DateTime,
    next_attempt_at: Nullable(DateTime),
    deadline_at: DateTime,
    completed_at: Nullable(DateTime),
    attempts: Type.Array(DeliveryAttempt),
  },
  { additionalProperties: false },
);

export const exampleEndpoint = {
  id: "we_4kP9sQ2mX7rT1vYz",
  url: "https://hooks.example.com/gateway",
  event_types: ["reservation.confirmed", "reservation.cancelled"],
  created_at: "2026-11-21T09:00:00.000Z",
  updated_at: "2026-11-21T09:00:00.000Z",
  previous_secret_expires_at: null,
};

export const exampleEvent = {
  id: "evt_5Vb8Qw2Lx9Rt3Kp7Mn4Hj6",
  type: "reservation.confirmed",
  created_at: "2026-11-21T09:05:00.000Z",
  data: {
    object: {
      id: "rsv_8Jk3Lm9Pq2",
      status: "confirmed",
      restaurant_id: "rst_approval",
      starts_at: "2026-11-28T19:00:00+09:00",
      party_size: 2,
    },
  },
};

export const exampleDelivery = {
  id: "whd_7Gh2Kl9Mn4Pq8Rs3Tv6Wx1",
  event_id: exampleEvent.id,
  status: "succeeded" as const,
  attempt_count: 2,
  created_at: "2026-11-21T09:05:00.000Z",
  next_attempt_at: null,
  deadline_at: "2026-11-22T09:05:00.000Z",
  completed_at: "2026-11-21T09:05:05.412Z",
  attempts: [
    {
      attempt: 1,
      attempted_at: "2026-11-21T09:05:00.031Z",
      url: "https://hooks.example.com/gateway",
      status_code: 500,
      latency_ms: 84,
      error: "HTTP 500",
      response_body: "Internal Server Error",
    },
    {
      attempt: 2,
      attempted_at: "2026-11-21T09:05:05.377Z",
      url: "https://hooks.example.com/gateway",
      status_code: 200,
      latency_ms: 35,
      error: null,
      response_body: "ok",
    },
  ],
};
