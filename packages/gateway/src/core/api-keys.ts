// API keys: "gwk_" + 32 base62, shown once, stored as a SHA-256 hash. Authentication goes through a short-lived
// cache so that a request does not read the store; the cache's TTL bounds how long a revocation takes everywhere.
import { hash } from "node:crypto";
import type { Kysely } from "kysely";
import { BoundedMap } from "../bounded-map.ts";
import type { ApiKeysTable, Database } from "../store/schema.ts";
import type { Clock } from "./clock.ts";
import { type BrokenRule, brokenRuleError, GatewayError, notFound } from "./errors.ts";
import { newId, randomBase62 } from "./ids.ts";
import { newestFirstPage } from "./pagination.ts";
import { printable } from "./printable.ts";
import { parseScopes, type ScopeTargets, scopesWithin } from "./scopes.ts";

export interface ApiKeyView {
  id: string;
  name: string;
  account_id: string;
  key_prefix: string;
  scopes: string[];
  rate_limit: { per_minute: number; burst: number } | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** Who is calling: resolved from an API key (or, later, a delegation token). */
export interface Principal {
  kind: "api_key" | "delegation";
  accountId: string;
  keyId: string;
  scopes: string[];
  rateLimit: { perMinute: number; burst: number } | null;
  /** When the credential stops working (ms since the epoch); null for a key that does not expire. */
  expiresAt: number | null;
  /** A delegation token's connection: credentials-mode calls without X-Gateway-Connection-Id run against it. */
  connectionId?: string;
  /**
   * Who calls, when not the key itself (keyId): every delegation token of one console user is that user. Rate limits
   * and Idempotency-Key replays are per caller, so that minting more tokens gives no more requests.
   */
  callerId?: string;
}

export interface CreateKeyInput {
  accountId: string;
  name?: string | undefined;
  scopes: readonly string[] | string;
  expiresAt?: number | null | undefined;
  rateLimit?: { perMinute: number; burst: number } | null | undefined;
}

/**
 * What a key may be made with, the same through the API (create_api_key's schema) and `gateway keys create`: a longer
 * name or more scopes is a mistake, and a larger rate limit does not fit the RateLimit headers' integers or the store's.
 */
export const apiKeyBounds = { nameMaxLength: 100, scopesMaxItems: 100, rateLimitMax: 1_000_000 } as const;

const keyPattern = /^gwk_[0-9A-Za-z]{32}$/;
// crypto.hash: the one-shot digest, without a Hash object per call (a key is hashed on every request).
const hashKey = (key: string) => hash("sha256", key, "hex");

/** A cache entry: the key's row (null: no such key) and its principal, built once per read. */
interface CachedKey {
  row: ApiKeysTable | null;
  principal: Principal | null;
  /**
   * performance.now() when it lapses: the TTL is counted on the monotonic clock, as the gateway's time can be set back
   * (an NTP step, the database server's clock followed back), which would keep an entry, a revoked key's with it, for
   * the length of the step.
   */
  until: number;
}

const principalOf = (row: ApiKeysTable): Principal =>
  Object.freeze({
    kind: "api_key",
    accountId: row.account_id,
    keyId: row.id,
    scopes: Object.freeze(JSON.parse(row.scopes)) as string[],
    rateLimit:
      row.rate_limit_per_minute === null
        ? null
        : Object.freeze({
            perMinute: row.rate_limit_per_minute,
            burst: row.rate_limit_burst ?? row.rate_limit_per_minute,
          }),
    expiresAt: row.expires_at,
  });
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const lastUsedWriteIntervalMs = 60_000;
/**
 * Entries each of a node's maps keeps: the keys found and the keys not found are cached apart, so that anyone sending
 * keys that do not exist (no key needed for that) fills only the second; each map drops its least recently used entry
 * when full.
 */
export const keyCacheEntries = 10_000;

export function toKeyView(row: ApiKeysTable): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    account_id: row.account_id,
    key_prefix: row.key_prefix,
    scopes: JSON.parse(row.scopes) as string[],
    rate_limit:
      row.rate_limit_per_minute === null
        ? null
        : { per_minute: row.rate_limit_per_minute, burst: row.rate_limit_burst ?? row.rate_limit_per_minute },
    created_at: new Date(row.created_at).toISOString(),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
    last_used_at: iso(row.last_used_at),
  };
}

/**
 * A key refused from its first request is a mistake in the request, not a key: its expiry must be in the future. NaN
 * is what readDateTime makes of a date-time the format allows but no clock shows (a leap second, :60).
 */
export function expiryRule(expiresAt: number | null | undefined, now: number): BrokenRule | undefined {
  if (expiresAt !== undefined && expiresAt !== null && Number.isNaN(expiresAt)) {
    return {
      message: "expires_at is not a time the gateway can read",
      problems: [{ path: "/expires_at", message: "must be a date-time with seconds from 00 to 59" }],
    };
  }
  if (expiresAt == null || expiresAt > now) return undefined;
  return {
    message: "expires_at is not in the future",
    problems: [{ path: "/expires_at", message: "must be later than now" }],
    fix: "Give a time after now, or no expires_at for a key that does not expire.",
  };
}

export class ApiKeys {
  private readonly knownKeys = new BoundedMap<string, CachedKey>(keyCacheEntries);
  private readonly unknownKeys = new BoundedMap<string, CachedKey>(keyCacheEntries);
  private readonly lastUsedWritten = new BoundedMap<string, number>(keyCacheEntries);
  /** Revocations on this node: a key read before one (its row may predate it) is not cached. */
  private revocations = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly cacheTtlMs: number,
    readonly scopeTargets: ScopeTargets,
  ) {}

  async create(input: CreateKeyInput): Promise<{ key: string; view: ApiKeyView }> {
    const scopes = parseScopes(input.scopes, this.scopeTargets);
    const now = this.clock.now();
    const expired = expiryRule(input.expiresAt, now);
    if (expired) throw brokenRuleError(expired);
    const key = `gwk_${randomBase62(32)}`;
    const row: ApiKeysTable = {
      id: newId("key", 16),
      account_id: input.accountId,
      name: input.name ?? "",
      key_hash: hashKey(key),
      key_prefix: key.slice(0, 8),
      scopes: JSON.stringify(scopes),
      rate_limit_per_minute: input.rateLimit?.perMinute ?? null,
      rate_limit_burst: input.rateLimit?.burst ?? null,
      created_at: now,
      expires_at: input.expiresAt ?? null,
      revoked_at: null,
      last_used_at: null,
    };
    await this.db.insertInto("api_keys").values(row).execute();
    return { key, view: toKeyView(row) };
  }

  /** A page of the account's keys, newest first. */
  async list(accountId: string, page: { cursor?: string | undefined; limit: number }) {
    const query = this.db.selectFrom("api_keys").selectAll().where("account_id", "=", accountId);
    const { items, pagination } = await newestFirstPage(query, page.cursor, page.limit);
    return { apiKeys: items.map(toKeyView), pagination };
  }

  /**
   * Revokes the key (again is harmless); with `by`, the scopes of the key asking, only a key those scopes cover: a key
   * can no more end a wider key (the one that made it, the account's first) than it can create one.
   */
  async revoke(accountId: string, keyId: string, by?: readonly string[]): Promise<ApiKeyView> {
    if (by) {
      const target = await this.db
        .selectFrom("api_keys")
        .select("scopes")
        .where("id", "=", keyId)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      if (!target) throw notFound(`No API key ${printable(keyId)}`);
      if (!scopesWithin(JSON.parse(target.scopes) as string[], by)) {
        throw new GatewayError("scope_denied", "A key can only revoke keys whose scopes its own scopes cover", {
          fix: "Revoke it with a key whose scopes cover the key's, such as one with the scope `*`.",
        });
      }
    }
    const now = this.clock.now();
    await this.db
      .updateTable("api_keys")
      .set({ revoked_at: now })
      .where("id", "=", keyId)
      .where("account_id", "=", accountId)
      .where("revoked_at", "is", null)
      .execute();
    // Dropped from this node's cache as soon as the revocation is written, whatever happens next.
    this.revocations++;
    for (const [hash, entry] of this.knownKeys) if (entry.row?.id === keyId) this.knownKeys.delete(hash);
    const row = await this.db
      .selectFrom("api_keys")
      .selectAll()
      .where("id", "=", keyId)
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    if (!row) throw notFound(`No API key ${printable(keyId)}`);
    return toKeyView(row);
  }

  /**
   * Resolves a bearer key to its principal, or fails with 401. Reads the store at most once per key per TTL: a cached
   * key is answered synchronously (no promise on the request's path), a key read from the store as a promise.
   */
  authenticate(key: string): Principal | Promise<Principal> {
    if (!keyPattern.test(key)) throw unauthorized("The API key is malformed");
    const hash = hashKey(key);
    const now = this.clock.now();
    const entry = this.knownKeys.get(hash) ?? this.unknownKeys.get(hash);
    const read = performance.now();
    if (entry && entry.until > read) return this.admit(entry, now);
    const revocations = this.revocations;
    return this.db
      .selectFrom("api_keys")
      .selectAll()
      .where("key_hash", "=", hash)
      .executeTakeFirst()
      .then((row) => {
        const fresh: CachedKey = {
          row: row ?? null,
          principal: row ? principalOf(row) : null,
          until: read + this.cacheTtlMs,
        };
        // A revocation on this node since the read began: the row may be from before it, and is not kept.
        if (this.revocations === revocations) (row ? this.knownKeys : this.unknownKeys).set(hash, fresh);
        return this.admit(fresh, now);
      });
  }

  private admit({ row, principal }: CachedKey, now: number): Principal {
    if (!row || !principal) throw unauthorized("The API key is not valid");
    if (row.revoked_at !== null) throw unauthorized("The API key has been revoked");
    if (row.expires_at !== null && row.expires_at <= now) throw unauthorized("The API key has expired");
    this.noteUse(row.id, now);
    return principal;
  }

  // last_used_at is advisory: written at most once a minute per key and node, off the request's path.
  private noteUse(keyId: string, now: number): void {
    const last = this.lastUsedWritten.get(keyId) ?? 0;
    if (now - last < lastUsedWriteIntervalMs) return;
    this.lastUsedWritten.set(keyId, now);
    this.db
      .updateTable("api_keys")
      .set({ last_used_at: now })
      .where("id", "=", keyId)
      .execute()
      .catch(() => this.lastUsedWritten.delete(keyId));
  }
}

// A 401 names the scheme it wants (RFC 9110 §11.6.1, RFC 6750 §3): clients and proxies act on the challenge.
export const unauthorized = (message: string) =>
  new GatewayError("unauthorized", message, {
    fix: "Send a valid key as `Authorization: Bearer gwk_…`; create one with `gateway keys create`.",
    headers: { "www-authenticate": 'Bearer realm="gateway"' },
  });

/** Who calls: the key, or the console user behind a delegation token (Principal.callerId). */
export const callerOf = (principal: Principal): string => principal.callerId ?? principal.keyId;
