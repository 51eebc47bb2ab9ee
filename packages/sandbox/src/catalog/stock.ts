// Per-store stock of an item: a pure function of (item, store), so every build and every call agrees.
import { seededRandom } from "../shared/random.ts";
import type { CatalogItem } from "./products.ts";
import type { CatalogStore } from "./stores.ts";

export interface StoreStock {
  storeId: string;
  storeName: string;
  ward: string;
  stockQuantity: number;
  stockStatus: "in_stock" | "low_stock" | "out_of_stock";
  pickupAvailable: boolean;
  pickupLeadMinutes: number | null;
}

export function stockAt(item: CatalogItem, store: CatalogStore): StoreStock {
  const random = seededRandom(`catalog:stock:${item.itemCode}:${store.storeId}`);
  const roll = random.next();
  const quantity = !item.availability || roll < 0.3 ? 0 : roll < 0.5 ? random.int(1, 3) : random.int(4, 40);
  const stockStatus = quantity === 0 ? "out_of_stock" : quantity <= 3 ? "low_stock" : "in_stock";
  const pickupAvailable = store.pickupAvailable && quantity > 0;
  return {
    storeId: store.storeId,
    storeName: store.storeName,
    ward: store.ward,
    stockQuantity: quantity,
    stockStatus,
    pickupAvailable,
    pickupLeadMinutes: pickupAvailable ? (stockStatus === "low_stock" ? 120 : 30) : null,
  };
}
