// catalog: catalogue and store data of a Japanese online and offline retailer. Every answer is typed as a generic
// JSON value; the adapter shapes it into products, stores, reviews and trends in snake_case.
import { defineProvider } from "../types.ts";
import { productDetail, productReviews, recommendProducts } from "./product.ts";
import { browseCatalog, searchProducts } from "./search.ts";
import { searchTrends, siteMetadata } from "./site.ts";
import { checkPickupAvailability } from "./stock.ts";
import { searchStores, storeDetail } from "./stores.ts";

export const catalogProvider = defineProvider({
  id: "catalog",
  title: "Catalogue and stores",
  description: "Products, categories, reviews, recommendations, search trends and Tokyo stores with pickup stock.",
  sandbox: "catalog",
  upstreamErrorMessage: (body) => (body as { error_description?: string } | null)?.error_description,
  operations: [
    browseCatalog,
    checkPickupAvailability,
    productDetail,
    productReviews,
    recommendProducts,
    searchProducts,
    searchStores,
    searchTrends,
    siteMetadata,
    storeDetail,
  ],
});
