// A logger for the parts that start before the app and its logger exist (the store, Redis, the webhook worker):
// what they log meanwhile (Redis unreachable at start, say) is kept and written once the logger is there.
import type { FastifyInstance } from "fastify";

type Level = "info" | "warn" | "error";

export function lateLog() {
  let target: FastifyInstance["log"] | undefined;
  const waiting: [Level, object, string][] = [];
  const at = (level: Level) => (object: object, message: string) => {
    if (target) target[level](object, message);
    else waiting.push([level, object, message]);
  };
  return {
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    bind(logger: FastifyInstance["log"]) {
      target = logger;
      for (const [level, object, message] of waiting.splice(0)) logger[level](object, message);
    },
  };
}
