// Try-it-out answers go to a browser: on /v1 calls made with a delegation token, every connection id in the answer
// (a price watch names its connection, for instance) is replaced by the same opaque handle the console uses.
import type { FastifyInstance } from "fastify";
import type { ConnectionHandles } from "./connection-handles.ts";

const connectionIdPattern = /conn_[0-9A-Za-z]{22}/g;

/** A root-level plugin (not encapsulated), so that its hook sees the /v1 routes. */
export function delegationRedactionHook(handles: ConnectionHandles) {
  const plugin = async (app: FastifyInstance) => {
    // A synchronous callback hook: every answer passes through it, and only delegated ones change.
    app.addHook("onSend", (request, _reply, payload, done) => {
      const principal = request.principal;
      if (principal?.kind !== "delegation" || !request.url.startsWith("/v1/")) return done(null, payload);
      const text =
        typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : undefined;
      if (text === undefined || !text.includes("conn_")) return done(null, payload);
      done(
        null,
        text.replace(connectionIdPattern, (id) => handles.seal(principal.accountId, id)),
      );
    });
  };
  return Object.assign(plugin, { [Symbol.for("skip-override")]: true });
}
