// Fault injection for every sandbox: `POST /_sandbox/faults` arms the next N matching requests to fail or hang,
// `DELETE /_sandbox/faults` disarms them. Lets gateway tests exercise 5xx, 429 and timeout handling over real HTTP.
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import fp from "fastify-plugin";
import { badRequest, type NativeErrorFormatter } from "./errors.ts";

export const FaultRule = Type.Object(
  {
    status: Type.Optional(Type.Integer({ minimum: 400, maximum: 599 })),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1 })),
    delay_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
    path_prefix: Type.Optional(Type.String({ pattern: "^/" })),
    retry_after: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
  },
  { additionalProperties: false },
);
export type FaultRule = Static<typeof FaultRule>;

interface ArmedFault {
  status: number | undefined;
  remaining: number;
  delayMs: number;
  pathPrefix: string;
  retryAfter: number | undefined;
}

export interface FaultInjectionOptions {
  formatError: NativeErrorFormatter;
}

const CONTROL_PREFIX = "/_sandbox/";

/** Waits `ms`, or less when the client goes away or the server shuts down, so close() never hangs on a delay. */
function holdReply(reply: FastifyReply, ms: number, pending: Set<() => void>): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      pending.delete(done);
      reply.raw.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    pending.add(done);
    reply.raw.once("close", done);
  });
}

const faultInjection: FastifyPluginAsync<FaultInjectionOptions> = async (app, options) => {
  let armed: ArmedFault[] = [];
  const pendingDelays = new Set<() => void>();

  app.post<{ Body: FaultRule }>("/_sandbox/faults", { schema: { body: FaultRule } }, async (request, reply) => {
    const rule = request.body;
    if (rule.status === undefined && rule.delay_ms === undefined) {
      throw badRequest("status or delay_ms is required");
    }
    armed.push({
      status: rule.status,
      remaining: rule.count ?? 1,
      delayMs: rule.delay_ms ?? 0,
      pathPrefix: rule.path_prefix ?? "/",
      retryAfter: rule.retry_after,
    });
    return reply.code(201).send({ armed: armed.length });
  });

  app.get("/_sandbox/faults", async () => ({
    faults: armed.map((f) => ({
      status: f.status ?? null,
      remaining: f.remaining,
      delay_ms: f.delayMs,
      path_prefix: f.pathPrefix,
      retry_after: f.retryAfter ?? null,
    })),
  }));

  app.delete("/_sandbox/faults", async (_request, reply) => {
    const cleared = armed.length;
    armed = [];
    return reply.send({ cleared });
  });

  app.addHook("onRequest", async (request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    if (path.startsWith(CONTROL_PREFIX)) return;
    const fault = armed.find((f) => f.remaining > 0 && path.startsWith(f.pathPrefix));
    if (fault === undefined) return;
    fault.remaining -= 1;
    armed = armed.filter((f) => f.remaining > 0);
    if (fault.delayMs > 0) await holdReply(reply, fault.delayMs, pendingDelays);
    if (fault.status === undefined || reply.raw.destroyed) return;
    if (fault.retryAfter !== undefined) reply.header("retry-after", String(fault.retryAfter));
    const message = `Injected fault: status ${fault.status}`;
    return reply
      .code(fault.status)
      .send(options.formatError({ status: fault.status, kind: "injected_fault", message }));
  });

  app.addHook("preClose", async () => {
    for (const release of [...pendingDelays]) release();
  });
};

export const faultInjectionPlugin = fp(faultInjection, { name: "sandbox-fault-injection", fastify: "5.x" });
