// catalog operation on in-store stock: where a product can be picked up, and how soon.
import { Type } from "@sinclair/typebox";
import { IdString, Nullable, StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { Output, ProductId } from "./common.ts";

const InventoryAnswer = Type.Object({
  itemCode: Type.String(),
  itemName: Type.String(),
  checkedAt: Type.String(),
  stores: Type.Array(
    Type.Object({
      storeId: Type.String(),
      storeName: Type.String(),
      ward: Type.String(),
      stockQuantity: Type.Integer(),
      stockStatus: Type.String(),
      pickupAvailable: Type.Boolean(),
      pickupLeadMinutes: Nullable(Type.Integer()),
    }),
  ),
});

export const checkPickupAvailability = defineOperation({
  id: "check_pickup_availability",
  summary: "In-store pickup stock of a product",
  description: "Stock and pickup lead time of a product at stores: the given ones, or those of a ward, or all.",
  auth: "none",
  readOnly: true,
  input: StrictObject({
    product_id: ProductId,
    store_ids: Type.Optional(Type.Array(IdString("Store id, e.g. cat-str-001."), { minItems: 1, maxItems: 30 })),
    ward: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: "e.g. 渋谷区" })),
    in_stock_only: Type.Optional(Type.Boolean()),
  }),
  output: Output,
  example: {
    input: { product_id: "cat-prd-0001", store_ids: ["cat-str-001"] },
    output: {
      product_id: "cat-prd-0001",
      checked_at: "2026-01-15T09:00:00+09:00",
      stores: [
        { store_id: "cat-str-001", name: "ひなたストア 渋谷店", stock_status: "low_stock", pickup_available: true },
      ],
    },
  },
  async handle(input, ctx) {
    const body = await ctx.upstream.request({
      answer: InventoryAnswer,
      path: `/api/v1/items/${encodeURIComponent(input.product_id)}/inventory`,
      query: {
        storeIds: input.store_ids?.join(","),
        ward: input.ward,
        inStockOnly: input.in_stock_only ? 1 : undefined,
      },
    });
    return {
      data: {
        product_id: body.itemCode,
        title: body.itemName,
        checked_at: body.checkedAt,
        stores: body.stores.map((s) => ({
          store_id: s.storeId,
          name: s.storeName,
          ward: s.ward,
          stock_quantity: s.stockQuantity,
          stock_status: s.stockStatus,
          pickup_available: s.pickupAvailable,
          pickup_lead_minutes: s.pickupLeadMinutes,
        })),
      },
    };
  },
});
