// The catalogue upstream's records, as schemas its answers are checked against (the operations' outputs are generic
// JSON values, so a field missing from the answer would otherwise become a hole in a 200), and their mapping into the
// gateway's vocabulary: snake_case, money as {amount, currency}, ids named for what they identify.
import { type Static, Type } from "@sinclair/typebox";

/** A category (the catalogue upstream's "genre") as every answer names it. */
export const Genre = Type.Object({ genreId: Type.Integer(), genreName: Type.String() });

export const UpstreamItem = Type.Object({
  itemCode: Type.String(),
  itemName: Type.String(),
  catchcopy: Type.String(),
  itemCaption: Type.String(),
  itemPrice: Type.Integer(),
  taxRate: Type.Number(),
  postageFlag: Type.Integer(),
  pointRate: Type.Number(),
  genreId: Type.Integer(),
  genreName: Type.String(),
  shopCode: Type.String(),
  shopName: Type.String(),
  janCode: Type.String(),
  itemUrl: Type.String(),
  imageUrls: Type.Array(Type.String()),
  availability: Type.Boolean(),
  reviewCount: Type.Integer(),
  reviewAverage: Type.Number(),
  tags: Type.Array(Type.String()),
  releaseDate: Type.String(),
  updatedAt: Type.String(),
  genrePath: Type.Optional(Type.Array(Genre)),
});
export type UpstreamItem = Static<typeof UpstreamItem>;

export const UpstreamStore = Type.Object({
  storeId: Type.String(),
  storeName: Type.String(),
  storeType: Type.String(),
  postalCode: Type.String(),
  prefecture: Type.String(),
  ward: Type.String(),
  addressLine: Type.String(),
  fullAddress: Type.String(),
  lat: Type.Number(),
  lng: Type.Number(),
  phone: Type.String(),
  nearestStation: Type.String(),
  walkMinutes: Type.Integer(),
  openingHours: Type.Array(Type.Object({ dayOfWeek: Type.String(), open: Type.String(), close: Type.String() })),
  regularHoliday: Type.String(),
  services: Type.Array(Type.String()),
  pickupAvailable: Type.Boolean(),
  distanceKm: Type.Optional(Type.Number()),
});
export type UpstreamStore = Static<typeof UpstreamStore>;

/** A page of a list answer: `page` of `pageCount`, `count` in all. */
export const UpstreamList = { count: Type.Integer(), page: Type.Integer(), pageCount: Type.Integer() };

export const yen = (amount: number) => ({ amount, currency: "JPY" });

export function product(item: UpstreamItem) {
  return {
    id: item.itemCode,
    title: item.itemName,
    catch_copy: item.catchcopy,
    description: item.itemCaption,
    price: yen(item.itemPrice),
    tax_rate_percent: item.taxRate,
    free_shipping: item.postageFlag === 1,
    point_rate_percent: item.pointRate,
    category: { id: String(item.genreId), name: item.genreName },
    ...(item.genrePath && { category_path: item.genrePath.map((g) => ({ id: String(g.genreId), name: g.genreName })) }),
    shop: { id: item.shopCode, name: item.shopName },
    jan_code: item.janCode,
    url: item.itemUrl,
    image_urls: item.imageUrls,
    in_stock: item.availability,
    rating: { average: item.reviewAverage, count: item.reviewCount },
    tags: item.tags,
    released_on: item.releaseDate,
    updated_at: item.updatedAt,
  };
}

export function store(s: UpstreamStore) {
  return {
    id: s.storeId,
    name: s.storeName,
    type: s.storeType,
    address: {
      postal_code: s.postalCode,
      prefecture: s.prefecture,
      ward: s.ward,
      line: s.addressLine,
      full: s.fullAddress,
    },
    location: { lat: s.lat, lng: s.lng },
    phone: s.phone,
    nearest_station: { name: s.nearestStation, walk_minutes: s.walkMinutes },
    opening_hours: s.openingHours.map((h) => ({ day: h.dayOfWeek, opens: h.open, closes: h.close })),
    regular_holiday: s.regularHoliday,
    services: s.services,
    pickup_available: s.pickupAvailable,
    ...(s.distanceKm !== undefined && { distance_km: s.distanceKm }),
  };
}
