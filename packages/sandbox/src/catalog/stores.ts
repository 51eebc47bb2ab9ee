// The chain's ~30 physical stores in Tokyo's wards: fixed table (real neighbourhoods, plausible addresses), with
// phone numbers, opening dates and parking drawn from a seeded PRNG.
import { seededRandom } from "../shared/random.ts";

export type StoreType = "flagship" | "standard" | "express";
export type StoreService = "pickup" | "parking" | "tax_free" | "delivery" | "repair_desk";

export interface OpeningHours {
  dayOfWeek: "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday" | "sunday";
  open: string;
  close: string;
}

export interface CatalogStore {
  storeId: string;
  storeName: string;
  storeType: StoreType;
  postalCode: string;
  prefecture: "東京都";
  ward: string;
  addressLine: string;
  fullAddress: string;
  lat: number;
  lng: number;
  phone: string;
  nearestStation: string;
  walkMinutes: number;
  openingHours: OpeningHours[];
  regularHoliday: string;
  services: StoreService[];
  pickupAvailable: boolean;
  parkingSpaces: number | null;
  floorAreaM2: number;
  openedOn: string;
}

type Hours = "standard" | "station" | "office";
// name, type, postal code, ward, address line, lat, lng, station, walk minutes, hours
type StoreRow = readonly [string, StoreType, string, string, string, number, number, string, number, Hours];

const rows: readonly StoreRow[] = [
  ["渋谷店", "flagship", "1500043", "渋谷区", "道玄坂2-10-7", 35.659, 139.6982, "渋谷駅", 3, "standard"],
  ["新宿店", "flagship", "1600022", "新宿区", "新宿3-17-1", 35.6912, 139.7036, "新宿三丁目駅", 1, "standard"],
  ["池袋店", "flagship", "1710022", "豊島区", "南池袋1-28-1", 35.7289, 139.7115, "池袋駅", 2, "standard"],
  ["銀座店", "flagship", "1040061", "中央区", "銀座4-6-16", 35.6717, 139.765, "銀座駅", 1, "standard"],
  ["上野店", "standard", "1100005", "台東区", "上野4-9-6", 35.7087, 139.774, "上野駅", 5, "station"],
  ["中目黒店", "standard", "1530051", "目黒区", "上目黒1-22-10", 35.6443, 139.6989, "中目黒駅", 2, "standard"],
  ["自由が丘店", "standard", "1520035", "目黒区", "自由が丘1-29-3", 35.6076, 139.6688, "自由が丘駅", 3, "standard"],
  ["二子玉川店", "flagship", "1580094", "世田谷区", "玉川2-21-1", 35.6117, 139.6266, "二子玉川駅", 2, "standard"],
  ["三軒茶屋店", "standard", "1540024", "世田谷区", "三軒茶屋2-11-22", 35.6436, 139.67, "三軒茶屋駅", 1, "station"],
  ["下北沢店", "express", "1550031", "世田谷区", "北沢2-24-5", 35.6613, 139.668, "下北沢駅", 2, "station"],
  ["品川店", "standard", "1080075", "港区", "港南2-16-3", 35.629, 139.74, "品川駅", 3, "station"],
  ["大崎店", "standard", "1410032", "品川区", "大崎1-6-1", 35.6197, 139.7286, "大崎駅", 4, "office"],
  ["五反田店", "express", "1410022", "品川区", "東五反田1-14-10", 35.6262, 139.724, "五反田駅", 2, "station"],
  ["六本木店", "standard", "1060032", "港区", "六本木6-10-1", 35.6605, 139.7292, "六本木駅", 4, "standard"],
  ["青山店", "standard", "1070061", "港区", "北青山3-6-1", 35.6672, 139.7125, "表参道駅", 1, "standard"],
  ["豊洲店", "flagship", "1350061", "江東区", "豊洲2-4-9", 35.655, 139.796, "豊洲駅", 3, "standard"],
  ["錦糸町店", "standard", "1300022", "墨田区", "江東橋3-14-5", 35.696, 139.814, "錦糸町駅", 2, "station"],
  ["押上店", "standard", "1310045", "墨田区", "押上1-1-2", 35.7101, 139.8107, "押上駅", 1, "standard"],
  ["北千住店", "standard", "1200034", "足立区", "千住3-92", 35.7497, 139.8049, "北千住駅", 1, "station"],
  ["赤羽店", "standard", "1150045", "北区", "赤羽1-1-1", 35.7777, 139.7209, "赤羽駅", 2, "station"],
  ["中野店", "standard", "1640001", "中野区", "中野5-52-15", 35.7074, 139.6657, "中野駅", 3, "standard"],
  ["高円寺店", "express", "1660002", "杉並区", "高円寺北2-3-4", 35.7054, 139.6497, "高円寺駅", 2, "station"],
  ["練馬店", "standard", "1760001", "練馬区", "練馬1-17-1", 35.7378, 139.6542, "練馬駅", 1, "standard"],
  ["蒲田店", "standard", "1440051", "大田区", "西蒲田7-68-1", 35.5622, 139.7158, "蒲田駅", 1, "station"],
  ["大井町店", "standard", "1400014", "品川区", "大井1-3-6", 35.6068, 139.7346, "大井町駅", 2, "standard"],
  ["神保町店", "express", "1010051", "千代田区", "神田神保町1-1", 35.6959, 139.7577, "神保町駅", 2, "office"],
  ["秋葉原店", "flagship", "1010021", "千代田区", "外神田1-15-16", 35.6985, 139.7714, "秋葉原駅", 3, "standard"],
  ["東京八重洲店", "standard", "1040028", "中央区", "八重洲2-1-1", 35.6795, 139.769, "東京駅", 2, "office"],
  ["月島店", "express", "1040052", "中央区", "月島3-8-10", 35.6625, 139.784, "月島駅", 2, "standard"],
  ["西葛西店", "standard", "1340088", "江戸川区", "西葛西6-15-1", 35.6646, 139.8593, "西葛西駅", 1, "standard"],
];

const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday"] as const;
const WEEKEND = ["saturday", "sunday"] as const;

function openingHours(hours: Hours): OpeningHours[] {
  const all = (open: string, close: string): OpeningHours[] =>
    [...WEEKDAYS, ...WEEKEND].map((dayOfWeek) => ({ dayOfWeek, open, close }));
  if (hours === "station") return all("07:00", "23:00");
  if (hours === "standard") return all("10:00", "21:00");
  return [
    ...WEEKDAYS.map((dayOfWeek) => ({ dayOfWeek, open: "08:00", close: "22:00" })),
    ...WEEKEND.map((dayOfWeek) => ({ dayOfWeek, open: "10:00", close: "20:00" })),
  ];
}

function services(type: StoreType, hasParking: boolean, index: number): StoreService[] {
  const list: StoreService[] = type === "express" ? [] : ["pickup"];
  if (hasParking) list.push("parking");
  if (type === "flagship") list.push("tax_free", "repair_desk");
  if (type !== "express" && index % 3 !== 2) list.push("delivery");
  return list;
}

export function buildStores(): CatalogStore[] {
  const random = seededRandom("catalog:stores");
  return rows.map(([name, type, postal, ward, addressLine, lat, lng, station, walk, hours], index) => {
    const hasParking = type === "flagship" || random.chance(0.35);
    const openedYear = random.int(2008, 2024);
    return {
      storeId: `cat-str-${String(index + 1).padStart(3, "0")}`,
      storeName: `ひなたストア ${name}`,
      storeType: type,
      postalCode: `${postal.slice(0, 3)}-${postal.slice(3)}`,
      prefecture: "東京都",
      ward,
      addressLine,
      fullAddress: `東京都${ward}${addressLine}`,
      lat,
      lng,
      phone: `03-${random.int(3000, 6999)}-${String(random.int(0, 9999)).padStart(4, "0")}`,
      nearestStation: station,
      walkMinutes: walk,
      openingHours: openingHours(hours),
      regularHoliday: hours === "station" ? "年中無休" : "1月1日",
      services: services(type, hasParking, index),
      pickupAvailable: type !== "express",
      parkingSpaces: hasParking ? random.int(2, 30) * 10 : null,
      floorAreaM2: type === "flagship" ? random.int(30, 60) * 100 : random.int(4, 25) * 100,
      openedOn: `${openedYear}-${String(random.int(1, 12)).padStart(2, "0")}-${String(random.int(1, 28)).padStart(2, "0")}`,
    };
  });
}
