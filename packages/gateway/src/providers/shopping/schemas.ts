// The shopping provider's resources (cart, cart line item, price drop, money: closed objects, every field required,
// null where the shop does not know the value), plus the price watch the gateway itself stores.
import { Type } from "@sinclair/typebox";
import { Money, Nullable, PatternString, StrictObject } from "../schemas.ts";

export const ProductId = PatternString(
  "^prod_[0-9a-z_]{1,32}$",
  'must be "prod_" followed by 1 to 32 lower-case letters, digits or underscores',
  {
    description: "Product identifier at the shop, e.g. `prod_0001` (`prod_offline` makes the shop answer 503).",
  },
);

export const CartLineItem = Type.Object(
  {
    product_id: Type.String({ description: "Product identifier." }),
    title: Nullable(Type.String({ description: "Item title." })),
    quantity: Type.Integer({ description: "Quantity in the cart." }),
    price: Nullable(Money),
  },
  { additionalProperties: false, description: "Cart line item; `price` is the unit price." },
);

export const Cart = Type.Object(
  {
    items: Type.Array(CartLineItem),
    subtotal: Nullable(Money),
    item_count: Type.Integer({ description: "Number of distinct line items (not the sum of quantities)." }),
  },
  { additionalProperties: false },
);

export const PriceDrop = Type.Object(
  {
    product_id: Type.String({ description: "Watched product." }),
    title: Nullable(Type.String({ description: "Product title." })),
    old_price: Nullable(Money),
    new_price: Nullable(Money),
    drop_percent: Nullable(
      Type.Number({
        description:
          "Drop versus the stored price, in percent with one decimal: positive when the price fell, 0 when unchanged, negative when it rose; null when either price is unknown.",
      }),
    ),
    target_hit: Type.Boolean({ description: "True when the new price met the watch's target price." }),
  },
  { additionalProperties: false },
);

export const PriceWatch = Type.Object(
  {
    product_id: Type.String(),
    title: Nullable(Type.String()),
    target_price: Nullable(Money),
    current_price: Nullable(Money),
    snapshot_price: Nullable(Money),
    connection_id: Type.String(),
    external_ref: Type.String(),
    watched_at: Type.String({ format: "date-time" }),
    last_checked_at: Nullable(Type.String({ format: "date-time" })),
  },
  {
    additionalProperties: false,
    description:
      "A watched product: `current_price` is the shop's price now, `snapshot_price` the price the gateway stored at the watch or the last check_price_drops, which the next check compares with.",
  },
);

export const action = <A extends string>(name: A) => Type.Literal(name, { description: `Always "${name}".` });

export const EmptyInput = StrictObject({});

export const yen = (amount: number | null | undefined) =>
  amount === null || amount === undefined ? null : { amount, currency: "JPY" };

export const exampleCart = {
  items: [
    {
      product_id: "prod_0001",
      title: "【ひのき堂】新潟県産コシヒカリ 5kg",
      quantity: 2,
      price: { amount: 2480, currency: "JPY" },
    },
    {
      product_id: "prod_0042",
      title: "【ひのき堂】ゲルインクボールペン 0.5mm 10色セット",
      quantity: 1,
      price: { amount: 1480, currency: "JPY" },
    },
  ],
  subtotal: { amount: 6440, currency: "JPY" },
  item_count: 2,
};
