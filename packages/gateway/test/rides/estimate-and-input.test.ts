// estimate_ride (read-only: the same answer however often it is repeated, no Idempotency-Key needed), and everything
// request_ride, get_ride and cancel_ride must refuse without changing anything: wrong types, unknown fields,
// coordinates out of range, unknown products, the company's refusals (outside the service area, too short), unknown
// ids, another account's and another rider's rides; Idempotency-Key replays of request_ride.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answer,
  callOperation,
  connectUser,
  copies,
  otherAccount,
  type ProviderSetup,
} from "../stateful/provider-setup.ts";
import { getRide, requestRide, shibuyaStation, startRides, tokyoStation, yokohamaStation } from "./setup.ts";

let s: ProviderSetup;
beforeAll(async () => {
  s = await startRides();
});
afterAll(async () => s?.close());

const yen = (amount: number) => ({ amount, currency: "JPY" });
const trip = { pickup: tokyoStation, dropoff: shibuyaStation };

describe("estimate_ride", () => {
  it("prices every product by road distance; repeated without a key it answers the same and creates nothing", async () => {
    const before = (await copies(s)).length;
    const first = await answer(await s.t.call("rides", "estimate_ride", trip)); // the key alone
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toEqual({
      ...trip,
      distance_km: 8.4,
      duration_seconds: 1678,
      options: [
        { product: "standard", name: "タクシー", seats: 4, fare: yen(3400), pickup_eta_seconds: 240 },
        { product: "premium", name: "ハイヤー", seats: 3, fare: yen(5100), pickup_eta_seconds: 480 },
        { product: "van", name: "ジャンボタクシー", seats: 9, fare: yen(4420), pickup_eta_seconds: 600 },
      ],
    });
    for (let i = 0; i < 3; i++) {
      const again = await callOperation(s, "estimate_ride", trip);
      expect(again.body.data).toEqual(first.body.data);
      expect(again.headers.get("idempotent-replayed")).toBeNull();
    }
    const van = await callOperation(s, "estimate_ride", { ...trip, product: "van" });
    expect(van.body.data.options.map((o: any) => o.product)).toEqual(["van"]);
    expect((await copies(s)).length).toBe(before);
  });

  it("the company's refusals: outside the 23 wards and trips under 200 m are 422 provider_rejected", async () => {
    for (const operation of ["estimate_ride", "request_ride"]) {
      const outside = await callOperation(s, operation, { pickup: yokohamaStation, dropoff: shibuyaStation });
      expect(outside.status).toBe(422);
      expect(outside.body.error).toMatchObject({
        code: "provider_rejected",
        provider: "rides",
        retryable: false,
        message: expect.stringContaining("The pickup is outside the service area"),
      });
      const short = await callOperation(s, operation, { pickup: tokyoStation, dropoff: tokyoStation });
      expect([short.status, short.body.error.provider]).toEqual([422, "rides"]);
      expect(short.body.error.message).toContain("less than 200 m apart");
    }
  });
});

describe("bad input changes nothing", () => {
  it("refuses wrong types, unknown fields, out-of-range coordinates and unknown products with 400 and every field", async () => {
    const before = (await copies(s)).length;
    const cases: [Record<string, unknown>, { path: string; message: string }[]][] = [
      [
        { ...trip, product: "helicopter" },
        [{ path: "/product", message: 'must be one of "standard", "premium", "van"' }],
      ],
      [{ ...trip, pickup: { lat: 91, lng: 139.7 } }, [{ path: "/pickup/lat", message: "must be <= 90" }]],
      [{ ...trip, dropoff: { lat: "35.6", lng: 139.7 } }, [{ path: "/dropoff/lat", message: "must be number" }]],
      [{ ...trip, pickup: { lat: 35.6 } }, [{ path: "/pickup/lng", message: "is required" }]],
      [
        { ...trip, pickup: { ...tokyoStation, name: "東京駅" } },
        [{ path: "/pickup/name", message: "is not an allowed property" }],
      ],
      [{ ...trip, passengers: 2 }, [{ path: "/passengers", message: "is not an allowed property" }]],
      [{ pickup: tokyoStation }, [{ path: "/dropoff", message: "is required" }]],
    ];
    for (const operation of ["estimate_ride", "request_ride"]) {
      for (const [input, details] of cases) {
        const refused = await callOperation(s, operation, input);
        expect(refused.status, JSON.stringify(input)).toBe(400);
        expect(refused.body.error).toMatchObject({ code: "invalid_request", retryable: false, details });
        expect(refused.body.error.message).toBe(`The input of rides:${operation} is invalid`);
      }
    }
    expect((await copies(s)).length).toBe(before);
  });

  it("unknown and another account's ids are 404 without asking the company; another rider's is 404 from it", async () => {
    const mine = await requestRide(s);
    const other = await otherAccount(s);
    for (const id of [mine.id, "ride_0000000000000000000000", mine.ride_reference]) {
      for (const operation of ["get_ride", "cancel_ride"]) {
        const refused = await callOperation(s, operation, { ride_id: id }, other);
        expect(refused.status).toBe(404);
        expect(refused.body.error).toEqual({
          code: "not_found",
          message: `There is no ride ${id}`,
          request_id: refused.headers.get("x-request-id"),
          retryable: false,
        });
      }
    }
    const secondRider = await connectUser(s.t, "rides", "user_2", "demo2");
    const theirs = await callOperation(s, "cancel_ride", { ride_id: mine.id }, { connectionId: secondRider });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toMatchObject({ code: "not_found", provider: "rides" });
    expect(await getRide(s, mine.id)).toEqual(mine);
  });

  it("replays an Idempotency-Key on request_ride byte for byte without sending a second car", async () => {
    const before = (await copies(s)).length;
    const headers = { "idempotency-key": "airport-run-7" };
    const first = await callOperation(s, "request_ride", trip, { headers });
    const replay = await callOperation(s, "request_ride", trip, { headers });
    expect(first.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(first.text);
    expect((await copies(s)).length).toBe(before + 1);
  });
});
