// Usage: the request observer that counts every /v1 operation call per account (into the in-memory recorder), and
// GET /console/api/usage?window=hour|day, the report behind the console's charts.
import type { FastifyInstance } from "fastify";
import type { Clock } from "../../core/clock.ts";
import { invalidRequest } from "../../core/errors.ts";
import type { UsageRecorder } from "../../core/usage/recorder.ts";
import { usageReport } from "../../core/usage/report.ts";
import type { Store } from "../../store/database.ts";
import type { RequestObserver } from "../app.ts";

/** Counts every answered /v1 operation call per account into the in-memory recorder. */
export function usageObserver(recorder: UsageRecorder): RequestObserver {
  return (request, { status, latencyMs }) => {
    const label = request.operationLabel;
    const principal = request.principal;
    if (!label || !principal || !request.url.startsWith("/v1/")) return;
    recorder.record({
      accountId: principal.accountId,
      providerId: label.provider,
      operationId: label.operation,
      status,
      latencyMs,
    });
  };
}

export function usageRoutes(app: FastifyInstance, deps: { store: Store; clock: Clock; recorder: UsageRecorder }) {
  app.get<{ Querystring: { window?: string } }>("/console/api/usage", async (request) => {
    const window = request.query.window ?? "hour";
    if (window !== "hour" && window !== "day") {
      throw invalidRequest('window must be "hour" or "day"', [{ path: "/window", message: "must be hour or day" }]);
    }
    // What this node counted since its last flush shows at once; other nodes' counts arrive within seconds.
    await deps.recorder.flush();
    return {
      data: await usageReport(deps.store.db, request.consoleSession!.accountId, window, deps.clock.now()),
    };
  });
}
