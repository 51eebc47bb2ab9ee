// The delivery provider's API objects and input fields: a restaurant's menu, and the order (its lines, amounts in
// JPY as Money, the courier, the expected delivery time, who cancelled, timestamps in UTC).
import { Type } from "@sinclair/typebox";
import { IdString, Money, Nullable } from "../schemas.ts";

const Utc = (description: string) => Type.String({ format: "date-time", description: `${description} (UTC).` });
const oneOf = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

export const RestaurantId = IdString("Restaurant id from search_menus, e.g. `kitchen_hayate`.");
/** Resource ids are matched exactly: anything not issued to the caller's account is 404, malformed or not. */
export const OrderId = Type.String({ minLength: 1, maxLength: 64, description: "The order id create_order returned." });

export const MenuItem = Type.Object(
  {
    id: Type.String({ description: "`item_id` for create_order." }),
    name: Type.String({ description: "Name in Japanese." }),
    name_en: Type.String(),
    description: Type.String(),
    price: Money,
    available: Type.Boolean({ description: "false: sold out (create_order refuses it with 422)." }),
  },
  { additionalProperties: false },
);

export const Menu = Type.Object(
  {
    restaurant: Type.Object(
      {
        id: Type.String(),
        name: Type.String({ description: "Name in Japanese." }),
        name_en: Type.String(),
        cuisine: Type.String({ description: "e.g. ramen, sushi, curry, bento, yakitori, udon." }),
        area: Type.String({ description: "Tokyo neighbourhood, e.g. shinjuku, shibuya, tsukiji." }),
        address: Type.String(),
        open: Type.Boolean({ description: "Taking orders now (a closed kitchen refuses them with 422)." }),
        delivery_fee: Money,
        minimum_order: Money,
        estimated_delivery_minutes: Type.Integer({ description: "Usual minutes from order to door." }),
      },
      { additionalProperties: false },
    ),
    items: Type.Array(MenuItem),
  },
  { additionalProperties: false },
);

export const orderStatuses = [
  "placed",
  "accepted",
  "preparing",
  "ready_for_pickup",
  "picked_up",
  "delivered",
  "cancelled",
] as const;

export const Order = Type.Object(
  {
    id: Type.String({ description: "`ord_` + 22 characters." }),
    status: oneOf(
      orderStatuses,
      "placed → accepted → preparing → ready_for_pickup (the kitchen) → picked_up → delivered (the courier), or cancelled.",
    ),
    restaurant_id: Type.String(),
    restaurant_name: Type.String(),
    items: Type.Array(
      Type.Object(
        {
          item_id: Type.String(),
          name: Type.String(),
          quantity: Type.Integer(),
          unit_price: Money,
          amount: Money,
        },
        { additionalProperties: false },
      ),
    ),
    subtotal: Money,
    delivery_fee: Money,
    total: Money,
    delivery_address: Type.String({ description: "Where the courier brings it (personal data: never logged)." }),
    notes: Nullable(Type.String({ description: "The caller's note to the kitchen and the courier." })),
    order_reference: Type.String({ description: "The app's own order number (quote it to the restaurant)." }),
    courier: Nullable(
      Type.Object(
        { name: Type.String(), vehicle: Type.String({ description: "bicycle or scooter." }) },
        { additionalProperties: false, description: "Assigned once the food is ready for pick-up." },
      ),
    ),
    estimated_delivery_at: Nullable(Utc("Expected at the door; null once delivered or cancelled")),
    cancelled_by: Nullable(oneOf(["caller", "restaurant"], "Who cancelled; null unless cancelled.")),
    created_at: Utc("When it was placed"),
    updated_at: Utc("Last change"),
    delivered_at: Nullable(Utc("When the courier handed it over")),
    cancelled_at: Nullable(Utc("When it was cancelled")),
  },
  { additionalProperties: false },
);

const yen = (amount: number) => ({ amount, currency: "JPY" });

export const exampleOrder = {
  id: "ord_7Gm2Qx9LpR4sVt8Wb1Nc6Z",
  status: "placed" as const,
  restaurant_id: "kitchen_hayate",
  restaurant_name: "新宿 麺屋 はやて",
  items: [
    { item_id: "item_hayate_shoyu", name: "醤油らーめん", quantity: 2, unit_price: yen(950), amount: yen(1900) },
    { item_id: "item_hayate_gyoza", name: "焼き餃子 (6個)", quantity: 1, unit_price: yen(450), amount: yen(450) },
  ],
  subtotal: yen(2350),
  delivery_fee: yen(350),
  total: yen(2700),
  delivery_address: "東京都新宿区西新宿2-8-1 801号室",
  notes: "オートロック 801 を押してください",
  order_reference: "MP-4K8TQ2ZH",
  courier: null,
  estimated_delivery_at: "2027-12-01T03:42:00.000Z",
  cancelled_by: null,
  created_at: "2027-12-01T03:15:00.000Z",
  updated_at: "2027-12-01T03:15:00.000Z",
  delivered_at: null,
  cancelled_at: null,
};
