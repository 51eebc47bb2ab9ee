// The taxi company's tariff and service area ("みやこ交通"): Tokyo-style fares (¥500 for the first 1,096 m, then ¥100
// per 255 m) by car class, road distance as 1.3 × the straight line, 18 km/h through the city, and how far away the
// nearest free car of each class usually is. Positions are [lng, lat] pairs, as the dispatch API speaks them.
import { distanceKm } from "../shared/geo.ts";
import { DispatchError } from "./errors.ts";

export type LngLat = [number, number];
export type CarClass = "standard" | "premium" | "van";

export const CLASSES: Record<CarClass, { label: string; seats: number; multiplier: number; pickupEtaS: number }> = {
  standard: { label: "タクシー", seats: 4, multiplier: 1, pickupEtaS: 240 },
  premium: { label: "ハイヤー", seats: 3, multiplier: 1.5, pickupEtaS: 480 },
  van: { label: "ジャンボタクシー", seats: 9, multiplier: 1.3, pickupEtaS: 600 },
};
export const CLASS_NAMES = Object.keys(CLASSES) as CarClass[];

/** Tokyo's 23 wards and Haneda, roughly: the company does not dispatch outside. */
const AREA = { south: 35.5, north: 35.9, west: 139.55, east: 139.95 };
const ROAD_FACTOR = 1.3;
export const SPEED_M_PER_S = 5; // 18 km/h

export function assertServiceArea(point: LngLat, what: string): void {
  const [lng, lat] = point;
  if (lat < AREA.south || lat > AREA.north || lng < AREA.west || lng > AREA.east) {
    throw new DispatchError(422, "OUT_OF_SERVICE_AREA", `The ${what} is outside the service area (Tokyo 23 wards)`);
  }
}

export const roadMeters = (from: LngLat, to: LngLat): number =>
  Math.round(distanceKm(from[1], from[0], to[1], to[0]) * 1000 * ROAD_FACTOR);

export function fareYen(meters: number, carClass: CarClass): number {
  const meter = 500 + Math.ceil(Math.max(0, meters - 1096) / 255) * 100;
  return Math.round((meter * CLASSES[carClass].multiplier) / 10) * 10;
}

export interface Quote {
  class: CarClass;
  label: string;
  seats: number;
  fare_yen: number;
  pickup_eta_s: number;
}

/** What a trip would cost and take, for each class asked for. */
export function quote(from: LngLat, to: LngLat, classes: readonly CarClass[]) {
  assertServiceArea(from, "pickup");
  assertServiceArea(to, "drop-off");
  const distance = roadMeters(from, to);
  if (distance < 200) throw new DispatchError(422, "TRIP_TOO_SHORT", "Pickup and drop-off are less than 200 m apart");
  return {
    distance_m: distance,
    duration_s: Math.round(distance / SPEED_M_PER_S),
    quotes: classes.map(
      (c): Quote => ({
        class: c,
        label: CLASSES[c].label,
        seats: CLASSES[c].seats,
        fare_yen: fareYen(distance, c),
        pickup_eta_s: CLASSES[c].pickupEtaS,
      }),
    ),
  };
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The point `fraction` of the way from `a` to `b`, rounded to 6 decimals (about 10 cm). */
export function along(a: LngLat, b: LngLat, fraction: number): LngLat {
  return [round6(a[0] + (b[0] - a[0]) * fraction), round6(a[1] + (b[1] - a[1]) * fraction)];
}

/** A point `meters` away from `origin` in the direction `angle` (radians from north). */
export function offset(origin: LngLat, meters: number, angle: number): LngLat {
  const [lng, lat] = origin;
  const dLat = (meters * Math.cos(angle)) / 111_320;
  const dLng = (meters * Math.sin(angle)) / (111_320 * Math.cos((lat * Math.PI) / 180));
  return [round6(lng + dLng), round6(lat + dLat)];
}
