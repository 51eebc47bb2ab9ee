// Cart operations of the shopping provider: read, add (quantity defaults to 1), remove one product, empty.
import { Type } from "@sinclair/typebox";
import { StrictObject } from "../schemas.ts";
import { defineOperation } from "../types.ts";
import { shop, toCart } from "./adapter.ts";
import { action, Cart, EmptyInput, exampleCart, ProductId } from "./schemas.ts";

const emptyCart = { items: [], subtotal: { amount: 0, currency: "JPY" }, item_count: 0 };

export const getCart = defineOperation({
  id: "get_cart",
  summary: "Read the shopper's cart",
  description: "The connected shopper's cart with current unit prices; `item_count` counts distinct items.",
  auth: "credentials",
  readOnly: true,
  input: EmptyInput,
  output: Type.Object({ action: action("get_cart"), cart: Cart }, { additionalProperties: false }),
  example: { input: {}, output: { action: "get_cart", cart: exampleCart } },
  async handle(_input, ctx) {
    return { data: { action: "get_cart" as const, cart: toCart(await shop.cart(ctx)) } };
  },
});

export const addCartItem = defineOperation({
  id: "add_cart_item",
  summary: "Add a product to the cart",
  description:
    "Adds `quantity` (default 1) of the product; a product already in the cart gets its quantity raised. The shop " +
    "holds at most 99 of one product (more: 422 provider_rejected).",
  auth: "credentials",
  input: StrictObject({
    product_id: ProductId,
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 99, default: 1, description: "Default 1." })),
  }),
  output: Type.Object(
    {
      action: action("add_cart_item"),
      added: Type.Boolean({ description: "Whether the item is now in the cart." }),
      cart: Cart,
    },
    { additionalProperties: false },
  ),
  example: {
    input: { product_id: "prod_0042" },
    output: { action: "add_cart_item", added: true, cart: exampleCart },
  },
  async handle(input, ctx) {
    const cart = toCart(await shop.addLine(ctx, input.product_id, input.quantity ?? 1));
    const added = cart.items.some((item) => item.product_id === input.product_id);
    return { data: { action: "add_cart_item" as const, added, cart } };
  },
});

export const removeCartItem = defineOperation({
  id: "remove_cart_item",
  summary: "Remove a product from the cart",
  description: "Removes the product's line whatever its quantity; `removed` is false when it was not in the cart.",
  auth: "credentials",
  input: StrictObject({ product_id: ProductId }),
  output: Type.Object(
    { action: action("remove_cart_item"), removed: Type.Boolean(), cart: Cart },
    { additionalProperties: false },
  ),
  example: {
    input: { product_id: "prod_0042" },
    output: {
      action: "remove_cart_item",
      removed: true,
      cart: { items: [exampleCart.items[0]!], subtotal: { amount: 4960, currency: "JPY" }, item_count: 1 },
    },
  },
  async handle(input, ctx) {
    const native = await shop.removeLine(ctx, input.product_id);
    return { data: { action: "remove_cart_item" as const, removed: native.deleted > 0, cart: toCart(native) } };
  },
});

export const clearCart = defineOperation({
  id: "clear_cart",
  summary: "Empty the cart",
  description: "Empties the connected shopper's cart.",
  auth: "credentials",
  input: EmptyInput,
  output: Type.Object({ action: action("clear_cart"), cart: Cart }, { additionalProperties: false }),
  example: { input: {}, output: { action: "clear_cart", cart: emptyCart } },
  async handle(_input, ctx) {
    return { data: { action: "clear_cart" as const, cart: toCart(await shop.clearCart(ctx)) } };
  },
});
