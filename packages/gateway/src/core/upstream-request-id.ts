// The header in which a call the gateway makes to a provider for one of its requests carries that request's id (the
// X-Request-Id of the request's answer, the request_id of its log line): API calls (providers/upstream.ts) and the
// authorization server's (connections/oauth-client.ts) alike. The gateway's own calls carry none.
export const upstreamRequestIdHeader = "x-request-id";
