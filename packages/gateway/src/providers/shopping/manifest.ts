// The shopping provider (cart and price tracking) over the "さくらマーケット" member API. Every operation acts on a
// connected shopper's account: credentials mode, with the connection made by the hosted OAuth connect flow.
import { defineProvider } from "../types.ts";
import { nativeErrorMessage } from "./adapter.ts";
import { addCartItem, clearCart, getCart, removeCartItem } from "./cart.ts";
import { checkPriceDrops } from "./price-drops.ts";
import { listPriceWatches, unwatchPrice, watchPrice } from "./watches.ts";

export const shoppingProvider = defineProvider({
  id: "shopping",
  title: "Sakura Market",
  description: "A shopper's cart and price watches at the Sakura Market (さくらマーケット) shop, prices in JPY.",
  sandbox: "shopping",
  upstreamErrorMessage: nativeErrorMessage,
  oauth: { scopes: ["cart", "watchlist"] },
  operations: [
    getCart,
    addCartItem,
    removeCartItem,
    clearCart,
    watchPrice,
    listPriceWatches,
    unwatchPrice,
    checkPriceDrops,
  ],
});
