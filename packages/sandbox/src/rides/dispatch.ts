// The taxi company's trips, moved one step per tick: SEARCHING → MATCHED (a car assigned, then driving towards the
// rider) → ARRIVING (close to the pickup) → ON_TRIP (the rider aboard, driving to the drop-off) → DONE, or CANCELED by
// the rider before boarding or by the driver. Each step moves the car and its ETA; every change raises `seq` and is
// pushed as trip.updated.
import type { Pacer } from "../shared/pacer.ts";
import { newCode } from "../shared/pacer.ts";
import { seededRandom } from "../shared/random.ts";
import { DispatchError } from "./errors.ts";
import { along, type CarClass, CLASSES, type LngLat, offset, quote, SPEED_M_PER_S } from "./fares.ts";

export type Phase = "SEARCHING" | "MATCHED" | "ARRIVING" | "ON_TRIP" | "DONE" | "CANCELED";

export interface Trip {
  trip_id: string;
  phase: Phase;
  class: CarClass;
  from: LngLat;
  to: LngLat;
  driver: { name: string; car: string; plate: string; rating: number } | null;
  car_at: LngLat | null;
  /** Seconds to the pickup (MATCHED, ARRIVING) or to the drop-off (ON_TRIP). */
  eta_s: number | null;
  distance_m: number;
  quote_yen: number;
  fare_yen: number | null;
  canceled_by: "rider" | "driver" | null;
  requested_ms: number;
  picked_up_ms: number | null;
  done_ms: number | null;
  canceled_ms: number | null;
  updated_ms: number;
  seq: number;
}

interface TripRecord extends Trip {
  member: string;
  /** Where the car started from when it was assigned. */
  start: LngLat;
  step: number;
}

const drivers: Record<CarClass, { name: string; car: string; plate: string; rating: number }[]> = {
  standard: [
    { name: "佐々木 誠", car: "トヨタ JPN TAXI (黒)", plate: "品川 500 あ 12-34", rating: 4.8 },
    { name: "山本 浩二", car: "トヨタ JPN TAXI (藍)", plate: "練馬 500 か 56-78", rating: 4.6 },
    { name: "中村 由美", car: "トヨタ クラウンコンフォート", plate: "足立 500 さ 90-12", rating: 4.9 },
  ],
  premium: [{ name: "小林 隆", car: "レクサス LS", plate: "品川 300 た 88-01", rating: 5 }],
  van: [{ name: "加藤 大輔", car: "トヨタ ハイエース (ジャンボタクシー)", plate: "多摩 300 な 23-45", rating: 4.7 }],
};

/** Where the car is after each step of the ride: [phase, leg, fraction of that leg]. */
const script: [Phase, "approach" | "trip", number][] = [
  ["MATCHED", "approach", 0],
  ["MATCHED", "approach", 0.5],
  ["ARRIVING", "approach", 0.9],
  ["ON_TRIP", "trip", 0],
  ["ON_TRIP", "trip", 0.5],
  ["DONE", "trip", 1],
];

export interface DispatchOptions {
  now: () => number;
  pacer: Pacer;
  push: (key: string, type: string, payload: Record<string, unknown>) => void;
}

const view = (trip: TripRecord): Trip => {
  const { member: _member, start: _start, step: _step, ...rest } = trip;
  return structuredClone(rest);
};

export class Dispatch {
  private readonly trips = new Map<string, TripRecord>();
  private turn = 0;

  constructor(private readonly options: DispatchOptions) {}

  request(member: string, input: { from: LngLat; to: LngLat; class: CarClass }): Trip {
    const priced = quote(input.from, input.to, [input.class]);
    const now = this.options.now();
    const trip: TripRecord = {
      member,
      trip_id: newCode("MT-"),
      phase: "SEARCHING",
      class: input.class,
      from: input.from,
      to: input.to,
      driver: null,
      car_at: null,
      eta_s: null,
      distance_m: priced.distance_m,
      quote_yen: priced.quotes[0]?.fare_yen ?? 0,
      fare_yen: null,
      canceled_by: null,
      requested_ms: now,
      picked_up_ms: null,
      done_ms: null,
      canceled_ms: null,
      updated_ms: now,
      seq: 1,
      start: input.from,
      step: 0,
    };
    this.trips.set(trip.trip_id, trip);
    this.options.pacer.next(trip.trip_id, () => this.advance(trip.trip_id));
    return view(trip);
  }

  /** The member's trip (another member's is not found, as the API answers). */
  trip(member: string, tripId: string): Trip {
    const trip = this.trips.get(tripId);
    if (!trip || trip.member !== member) throw new DispatchError(404, "TRIP_NOT_FOUND", `No trip ${tripId}`);
    return view(trip);
  }

  cancelByRider(member: string, tripId: string): Trip {
    const trip = this.trip(member, tripId);
    if (trip.phase === "ON_TRIP")
      throw new DispatchError(409, "RIDER_ABOARD", `${tripId} is under way: the rider is aboard`);
    if (trip.phase === "DONE" || trip.phase === "CANCELED") {
      throw new DispatchError(409, "TRIP_CLOSED", `${tripId} is ${trip.phase.toLowerCase()}`);
    }
    return this.cancel(tripId, "rider");
  }

  /** The driver gives the job up before the rider boards (POST /_sandbox/dispatch/cancel). */
  cancelByDriver(tripId: string): Trip {
    const trip = this.known(tripId);
    if (trip.phase !== "MATCHED" && trip.phase !== "ARRIVING") {
      throw new DispatchError(409, "INVALID_STATE", `Cannot cancel ${tripId} for the driver: it is ${trip.phase}`);
    }
    return this.cancel(tripId, "driver");
  }

  /** The ride's next step (the pacer, and POST /_sandbox/dispatch/advance). */
  advance(tripId: string): Trip {
    const trip = this.known(tripId);
    const next = script[trip.step];
    if (!next || trip.phase === "CANCELED") {
      throw new DispatchError(409, "INVALID_STATE", `Cannot advance ${tripId}: it is ${trip.phase}`);
    }
    const [phase, leg, fraction] = next;
    const now = this.stamp(trip);
    const change: Partial<TripRecord> = { phase, step: trip.step + 1 };
    if (trip.phase === "SEARCHING") {
      const pool = drivers[trip.class];
      change.driver = pool[this.turn++ % pool.length] ?? null;
      const angle = seededRandom(trip.trip_id).next() * 2 * Math.PI;
      change.start = offset(trip.from, CLASSES[trip.class].pickupEtaS * SPEED_M_PER_S, angle);
    }
    const start = change.start ?? trip.start;
    const [a, b, legSeconds] =
      leg === "approach"
        ? [start, trip.from, CLASSES[trip.class].pickupEtaS]
        : [trip.from, trip.to, trip.distance_m / SPEED_M_PER_S];
    change.car_at = along(a, b, fraction);
    change.eta_s = phase === "DONE" ? null : Math.round(legSeconds * (1 - fraction));
    if (phase === "ON_TRIP" && trip.phase !== "ON_TRIP") change.picked_up_ms = now;
    if (phase === "DONE") Object.assign(change, { done_ms: now, fare_yen: trip.quote_yen });
    const result = this.change(tripId, change, now);
    if (phase !== "DONE") this.options.pacer.next(tripId, () => this.advance(tripId));
    return result;
  }

  private cancel(tripId: string, by: "rider" | "driver"): Trip {
    this.options.pacer.cancel(tripId);
    const at = this.stamp(this.known(tripId));
    return this.change(tripId, { phase: "CANCELED", canceled_by: by, canceled_ms: at, eta_s: null }, at);
  }

  private known(tripId: string): TripRecord {
    const trip = this.trips.get(tripId);
    if (!trip) throw new DispatchError(404, "TRIP_NOT_FOUND", `No trip ${tripId}`);
    return trip;
  }

  /** The time of a trip's next change: strictly increasing, even within one millisecond (receivers order by it). */
  private stamp(trip: TripRecord): number {
    return Math.max(this.options.now(), trip.updated_ms + 1);
  }

  /** Applies a change made at `at`, the one time of the change (its own timestamps carry the same value). */
  private change(tripId: string, change: Partial<TripRecord>, at?: number): Trip {
    const trip = this.known(tripId);
    Object.assign(trip, change, { updated_ms: at ?? this.stamp(trip), seq: trip.seq + 1 });
    const result = view(trip);
    this.options.push(tripId, "trip.updated", { trip: result });
    return result;
  }
}
