// The payment network's charges ("さくらペイ"): processing → succeeded | failed one tick after creation, by a fixed
// rule (an amount whose last two digits are 13 fails with insufficient_funds; everything else succeeds); succeeded
// → refunded at the merchant's request. Every change raises `version` and is pushed as charge.updated.
import { randomBytes } from "node:crypto";
import { SandboxError } from "../shared/errors.ts";
import { type Pacer, withoutMember } from "../shared/pacer.ts";

export interface Charge {
  id: string;
  object: "charge";
  amount: number;
  currency: "jpy";
  description: string;
  status: "processing" | "succeeded" | "failed" | "refunded";
  failure_code: string | null;
  failure_message: string | null;
  card: { brand: string; last4: string };
  /** Unix seconds. */
  created: number;
  status_transitions: { succeeded_at: number | null; failed_at: number | null; refunded_at: number | null };
  version: number;
}

/** A refusal in the network's own terms: `type` and `code` go into its error body. */
export class PaymentError extends SandboxError {
  constructor(
    status: number,
    readonly type: "card_error" | "invalid_request_error",
    readonly code: string,
    message: string,
  ) {
    super(status, status === 404 ? "not_found" : "bad_request", message);
  }
}

/** The largest charge the network accepts, in yen. */
export const MAX_CHARGE_YEN = 1_000_000;

/** Each member's card on file, by member id. */
const cards: Record<string, { brand: string; last4: string }> = {
  usr_demo: { brand: "visa", last4: "4242" },
  usr_demo2: { brand: "jcb", last4: "0005" },
};

export interface NetworkOptions {
  now: () => number;
  pacer: Pacer;
  push: (key: string, type: string, payload: Record<string, unknown>) => void;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

export class Network {
  private readonly charges = new Map<string, Charge & { member: string }>();

  constructor(private readonly options: NetworkOptions) {}

  create(member: string, input: { amount: number; currency: string; description: string }): Charge {
    if (input.currency !== "jpy") {
      throw new PaymentError(
        400,
        "invalid_request_error",
        "currency_not_supported",
        `Unsupported currency ${input.currency}`,
      );
    }
    if (input.amount > MAX_CHARGE_YEN) {
      throw new PaymentError(
        422,
        "card_error",
        "amount_too_large",
        `A charge may be at most ¥${MAX_CHARGE_YEN.toLocaleString("en")} (this one is ¥${input.amount.toLocaleString("en")})`,
      );
    }
    const charge = {
      member,
      id: `ch_${randomBytes(12).toString("hex")}`,
      object: "charge" as const,
      amount: input.amount,
      currency: "jpy" as const,
      description: input.description,
      status: "processing" as const,
      failure_code: null,
      failure_message: null,
      card: cards[member] ?? { brand: "visa", last4: "1881" },
      created: seconds(this.options.now()),
      status_transitions: { succeeded_at: null, failed_at: null, refunded_at: null },
      version: 1,
    };
    this.charges.set(charge.id, charge);
    this.options.pacer.next(charge.id, () => this.settle(charge.id));
    return withoutMember(charge);
  }

  /** The member's charge (another member's is not found, as the network answers). */
  charge(member: string, chargeId: string): Charge {
    const charge = this.charges.get(chargeId);
    if (!charge || charge.member !== member) {
      throw new PaymentError(404, "invalid_request_error", "resource_missing", `No such charge: ${chargeId}`);
    }
    return withoutMember(charge);
  }

  refund(member: string, chargeId: string): Charge {
    const charge = this.charge(member, chargeId);
    if (charge.status !== "succeeded") {
      const code = charge.status === "refunded" ? "charge_already_refunded" : "charge_not_refundable";
      throw new PaymentError(
        409,
        "invalid_request_error",
        code,
        `Charge ${chargeId} is ${charge.status}: it cannot be refunded`,
      );
    }
    const at = seconds(this.options.now());
    return this.change(chargeId, {
      status: "refunded",
      status_transitions: { ...charge.status_transitions, refunded_at: at },
    });
  }

  /** The issuer's answer (the pacer, and POST /_sandbox/network/settle): the documented rule decides. */
  settle(chargeId: string): Charge {
    const charge = this.charges.get(chargeId);
    if (!charge)
      throw new PaymentError(404, "invalid_request_error", "resource_missing", `No such charge: ${chargeId}`);
    if (charge.status !== "processing") {
      throw new PaymentError(409, "invalid_request_error", "charge_settled", `Charge ${chargeId} is ${charge.status}`);
    }
    this.options.pacer.cancel(chargeId);
    const at = seconds(this.options.now());
    if (charge.amount % 100 === 13) {
      return this.change(chargeId, {
        status: "failed",
        failure_code: "insufficient_funds",
        failure_message: "The card has insufficient funds to complete the purchase.",
        status_transitions: { ...charge.status_transitions, failed_at: at },
      });
    }
    return this.change(chargeId, {
      status: "succeeded",
      status_transitions: { ...charge.status_transitions, succeeded_at: at },
    });
  }

  private change(chargeId: string, change: Partial<Charge>): Charge {
    const charge = this.charges.get(chargeId) as Charge & { member: string };
    Object.assign(charge, change, { version: charge.version + 1 });
    const view = withoutMember(charge);
    this.options.push(chargeId, "charge.updated", { charge: view });
    return view;
  }
}
