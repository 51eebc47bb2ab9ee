// A node checks its master keys against the store's at start (master-key-check.ts), but the store's records move while
// it runs: a re-seal records a new key and retires the old one, a node started with a new key records that it seals
// under it. A node left running with the old key alone (a rolling rotation's step skipped, a node never restarted)
// would then fail on every value sealed under the new key, one request and one delivery at a time. The start's check
// is run again, reading only, on each /readyz and whenever a sealed value does not open; while it refuses the node's
// keys, /readyz answers not ready, the delivery worker leaves deliveries to nodes that can sign them, and a request
// that meets such a value is answered that this node lacks the key. Said once in the log when it begins, and when it
// ends.
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.ts";
import { GatewayError } from "../errors.ts";
import { type MasterKeys, storeRefusal } from "./master-key-check.ts";
import { SealedValueDoesNotOpen } from "./secret-box.ts";

/** The answer of /readyz and of a request on such a node: it names the variable, never a key or a path. */
export const lacksStoreKey =
  "This node lacks the master key the store's secrets are sealed with (a re-seal or a node with a new key moved them " +
  "on): restart it with the store's GATEWAY_MASTER_KEY, as docs/configuration.md says under rotating the master key";

export interface MasterKeyWatchLog {
  error(object: object, message: string): void;
  info(object: object, message: string): void;
}

export class MasterKeyWatch {
  private refusal: GatewayError | undefined;
  private checking: Promise<GatewayError | undefined> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly keys: MasterKeys,
    private readonly log: MasterKeyWatchLog,
  ) {}

  /** What this node answers while the store's records refuse its keys, as the last check found; else undefined. */
  get refused(): GatewayError | undefined {
    return this.refusal;
  }

  /** Reads the store's records again; checks asked for while one runs share it. Throws when the store does. */
  check(): Promise<GatewayError | undefined> {
    this.checking ??= this.run().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  /**
   * What to answer for `error`: a sealed value that did not open is this node's refusal when the store's records
   * refuse its keys (checked now); anything else, and a value that is altered rather than sealed under another key,
   * stays as it is.
   */
  async explain(error: unknown): Promise<unknown> {
    if (!(error instanceof SealedValueDoesNotOpen)) return error;
    try {
      return (await this.check()) ?? error;
    } catch {
      return error;
    }
  }

  private async run(): Promise<GatewayError | undefined> {
    const reason = await storeRefusal(this.db, this.keys);
    if (reason && !this.refusal) {
      this.log.error(
        { reason: reason.message },
        "this node's master keys no longer open the store's secrets: it answers /readyz not ready and leaves webhook " +
          "deliveries to other nodes until it is restarted with the store's GATEWAY_MASTER_KEY",
      );
      // A 500 is never retryable (SPEC §4); the message says what to do. Logged here once, not by each answer.
      this.refusal = new GatewayError("internal_error", lacksStoreKey, { logged: true });
    } else if (!reason && this.refusal) {
      this.log.info({}, "this node's master keys open the store's secrets again");
      this.refusal = undefined;
    }
    return this.refusal;
  }
}
