// The catalogue upstream's records in the gateway's vocabulary: snake_case, money as {amount, currency}, ids named
// for what they identify.
export interface UpstreamItem {
  itemCode: string;
  itemName: string;
  catchcopy: string;
  itemCaption: string;
  itemPrice: number;
  taxRate: number;
  postageFlag: number;
  pointRate: number;
  genreId: number;
  genreName: string;
  shopCode: string;
  shopName: string;
  janCode: string;
  itemUrl: string;
  imageUrls: string[];
  availability: boolean;
  reviewCount: number;
  reviewAverage: number;
  tags: string[];
  releaseDate: string;
  updatedAt: string;
  genrePath?: { genreId: number; genreName: string }[];
}

export interface UpstreamStore {
  storeId: string;
  storeName: string;
  storeType: string;
  postalCode: string;
  prefecture: string;
  ward: string;
  addressLine: string;
  fullAddress: string;
  lat: number;
  lng: number;
  phone: string;
  nearestStation: string;
  walkMinutes: number;
  openingHours: { dayOfWeek: string; open: string; close: string }[];
  regularHoliday: string;
  services: string[];
  pickupAvailable: boolean;
  distanceKm?: number;
}

export interface UpstreamList {
  count: number;
  page: number;
  pageCount: number;
}

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
