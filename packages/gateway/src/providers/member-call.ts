// An upstream call made for a connection's end user: with the connection's access token, refreshed once when the
// provider refuses it (core/connections/with-access-token.ts). With an `answer` schema, what it answers is checked.
import type { Static, TSchema } from "@sinclair/typebox";
import { withAccessToken } from "../core/connections/with-access-token.ts";
import type { OperationContext } from "./types.ts";
import type { CheckedRequest, UpstreamRequest } from "./upstream.ts";

export function memberCall<S extends TSchema>(ctx: OperationContext, request: CheckedRequest<S>): Promise<Static<S>>;
export function memberCall<T>(ctx: OperationContext, request: UpstreamRequest): Promise<T>;
export function memberCall(ctx: OperationContext, request: UpstreamRequest): Promise<unknown> {
  return withAccessToken(ctx, (accessToken) => ctx.upstream.request({ ...request, accessToken }));
}
