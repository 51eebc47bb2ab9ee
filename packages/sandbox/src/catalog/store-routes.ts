// Store endpoints of the catalogue upstream: search by keyword, ward, service or distance, and store detail.
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { badRequest, notFound } from "../shared/errors.ts";
import { distanceKm } from "../shared/geo.ts";
import { pageParam, paginate, perPageParam } from "../shared/paging.ts";
import { foldForSearch, searchTerms } from "../shared/search.ts";
import type { CatalogData } from "./data.ts";
import { listHeader } from "./format.ts";
import type { CatalogStore } from "./stores.ts";

const StoreSearchQuery = Type.Object({
  keyword: Type.Optional(Type.String({ maxLength: 128 })),
  ward: Type.Optional(Type.String({ maxLength: 20 })),
  service: Type.Optional(
    Type.Union(["pickup", "parking", "tax_free", "delivery", "repair_desk"].map((s) => Type.Literal(s))),
  ),
  lat: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
  lng: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
  radiusKm: Type.Number({ exclusiveMinimum: 0, maximum: 100, default: 10 }),
  page: pageParam(),
  hits: perPageParam(20, 100),
});
const StoreParams = Type.Object({ storeId: Type.String() });

type StoreHit = CatalogStore & { distanceKm?: number };

export function registerStoreRoutes(app: FastifyInstance, data: CatalogData): void {
  app.get<{ Querystring: Static<typeof StoreSearchQuery> }>(
    "/api/v1/stores/search",
    { schema: { querystring: StoreSearchQuery } },
    async (request) => {
      const { keyword, ward, service, lat, lng, radiusKm, page, hits } = request.query;
      if ((lat === undefined) !== (lng === undefined)) throw badRequest("lat and lng must be given together");
      const terms = searchTerms(keyword);
      let matches: StoreHit[] = data.stores.filter((store) => {
        if (ward !== undefined && store.ward !== ward) return false;
        if (service !== undefined && !store.services.includes(service as CatalogStore["services"][number])) {
          return false;
        }
        const haystack = foldForSearch(`${store.storeName} ${store.fullAddress} ${store.nearestStation}`);
        return terms.every((term) => haystack.includes(term));
      });
      if (lat !== undefined && lng !== undefined) {
        matches = matches
          .map((store) => ({
            ...store,
            distanceKm: Math.round(distanceKm(lat, lng, store.lat, store.lng) * 100) / 100,
          }))
          .filter((store) => store.distanceKm <= radiusKm)
          .sort((a, b) => a.distanceKm - b.distanceKm);
      }
      const result = paginate(matches, page, hits);
      return { ...listHeader(result), stores: result.items };
    },
  );

  app.get<{ Params: Static<typeof StoreParams> }>("/api/v1/stores/:storeId", async (request) => {
    const store = data.storesById.get(request.params.storeId);
    if (store === undefined) throw notFound(`storeId ${request.params.storeId} is not found`);
    return { store };
  });
}
