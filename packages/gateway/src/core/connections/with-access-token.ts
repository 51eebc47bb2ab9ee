// For provider adapters: run an upstream call with the connection's access token and, when the provider refuses
// that token (HTTP 401: revoked or expired early, clocks disagreeing), refresh it once and try again.
import type { Clock } from "../clock.ts";
import { GatewayError } from "../errors.ts";
import type { CoreServices } from "../services.ts";

/** The parts of an OperationContext this needs (structurally; core does not import provider types). */
export interface CredentialCallContext {
  /** The gateway request the call is made for: a refresh made for it carries its id. */
  requestId: string;
  accountId: string;
  providerId: string;
  connection: { id: string; accessToken: string } | undefined;
  core: CoreServices;
  clock: Clock;
}

/** Marks a GatewayError made from an upstream 401 (providers/upstream.ts). */
export const credentialsRefused = new WeakSet<GatewayError>();

export async function withAccessToken<T>(
  ctx: CredentialCallContext,
  call: (accessToken: string) => Promise<T>,
): Promise<T> {
  const { connection, core } = ctx;
  if (!connection || !core.connections) {
    throw new GatewayError("internal_error", `${ctx.providerId} called an upstream needing a connection without one`);
  }
  try {
    return await call(connection.accessToken);
  } catch (error) {
    if (!(error instanceof GatewayError) || !credentialsRefused.has(error)) throw error;
    const fresh = await core.connections.refreshRejected({
      accountId: ctx.accountId,
      providerId: ctx.providerId,
      connectionId: connection.id,
      rejectedToken: connection.accessToken,
      requestId: ctx.requestId,
    });
    try {
      return await call(fresh);
    } catch (again) {
      if (!(again instanceof GatewayError) || !credentialsRefused.has(again)) throw again;
      // The provider refused the token it has just issued, though it took the refresh token: not the end user's
      // doing (that refresh would have failed, and the connection would need re-authorisation), so a later call may
      // well succeed. A 401 ran nothing.
      throw new GatewayError(
        "provider_unavailable",
        `The ${ctx.providerId} provider refused the access token it had just issued; the call was not made. Retry it.`,
        { provider: ctx.providerId, notExecuted: true },
      );
    }
  }
}
