// What the delivery worker keeps in memory of webhook endpoints on each node: their targets (targets.ts), opened
// secrets (endpoint-secrets.ts) and parsed URLs (sender.ts). Each is bounded in count, and an entry not used for
// `endpointCacheIdleMs` leaves at the cache's next use: an endpoint deleted through another node (this node is not
// told) or no longer delivered to does not stay until the cache fills, its secrets in the clear among it. An endpoint
// in use is read at least every targetMaxAgeMs, well within the idle bound. docs/scaling.md lists them.

/** Endpoints whose targets, and whose opened secrets, a node keeps at most. */
export const endpointCacheEntries = 10_000;

/** Endpoint URLs a node keeps parsed at most. */
export const parsedUrlEntries = 1_000;

/** How long an endpoint's entries stay unused before they leave. */
export const endpointCacheIdleMs = 60_000;
