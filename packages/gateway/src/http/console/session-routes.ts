// Sign-in, the current session, and sign-out: POST, GET and DELETE /console/api/session.
import type { FastifyInstance } from "fastify";
import { GatewayError, invalidRequest } from "../../core/errors.ts";
import type { LoginThrottle } from "../../core/users/login-throttle.ts";
import { type Sessions, sessionIdleMs } from "../../core/users/sessions.ts";
import type { ConsoleUser, Users } from "../../core/users/users.ts";
import { bodyAsObject } from "../body.ts";
import { type CookieSettings, clearSessionCookie, setSessionCookie } from "./cookies.ts";
import { requireSameOrigin } from "./session-guard.ts";

export interface SessionRouteDeps {
  users: Users;
  sessions: Sessions;
  throttle: LoginThrottle;
  cookie: CookieSettings;
  publicUrl: string;
}

const sessionView = (user: ConsoleUser, csrfToken: string, expiresAt: number) => ({
  data: {
    user: { id: user.id, email: user.email },
    account_id: user.account_id,
    csrf_token: csrfToken,
    expires_at: new Date(expiresAt).toISOString(),
  },
});

/** What is wrong with a credential of the sign-in body, if anything: absent or empty, or not a string. */
function credentialProblem(path: string, value: unknown) {
  if (value === undefined || value === null || value === "") return { path, message: "is required" };
  return typeof value === "string" ? undefined : { path, message: "must be a string" };
}

/** POST /console/api/session: the one console route that needs no session. */
export function signInRoutes(deps: SessionRouteDeps) {
  return async (app: FastifyInstance) => {
    app.post("/console/api/session", async (request, reply) => {
      requireSameOrigin(request, deps.publicUrl);
      const body = bodyAsObject(request.body);
      const { email, password } = body;
      if (typeof email !== "string" || typeof password !== "string" || email === "" || password === "") {
        const problems = [credentialProblem("/email", email), credentialProblem("/password", password)];
        throw invalidRequest(
          "Send your email and password",
          problems.filter((problem) => problem !== undefined),
        );
      }
      await deps.throttle.attempt(email, request.ip);
      const user = await deps.users.authenticate(email, password);
      if (!user) throw new GatewayError("unauthorized", "Wrong email or password");
      await deps.throttle.succeed(email, request.ip);
      const { token, session } = await deps.sessions.create(user);
      setSessionCookie(reply, deps.cookie, token, sessionIdleMs);
      reply.header("cache-control", "no-store").header("x-console-user", user.id);
      return sessionView(user, session.csrfToken, session.expiresAt);
    });
  };
}

/** GET and DELETE /console/api/session, registered behind the session guard. */
export function sessionRoutes(app: FastifyInstance, deps: SessionRouteDeps) {
  app.get("/console/api/session", async (request, reply) => {
    const session = request.consoleSession!;
    const user = await deps.users.get(session.userId);
    if (!user) throw new GatewayError("unauthorized", "This console user no longer exists");
    reply.header("cache-control", "no-store");
    return sessionView(user, session.csrfToken, session.expiresAt);
  });

  app.delete("/console/api/session", async (request, reply) => {
    await deps.sessions.revoke(request.consoleSession!.id);
    clearSessionCookie(reply, deps.cookie);
    return { data: { signed_out: true } };
  });
}
