// Tokyo wall-clock time for the booking site (Asia/Tokyo is UTC+9 all year, no daylight saving) and its slot keys:
// `slot_<shop>_<yyyymmdd>_<hhmm>_<table>`, one per table and seating, e.g. slot_instant_20271224_2000_t2.
import { type Shop, shopByCode } from "./restaurants.ts";

const offsetMs = 9 * 3600 * 1000;

/** "YYYY-MM-DD" of the instant in Tokyo. */
export const tokyoDate = (ms: number): string => new Date(ms + offsetMs).toISOString().slice(0, 10);

/** ISO 8601 with the +09:00 offset, seconds precision: "2027-12-24T20:00:00+09:00". */
export function tokyoIso(ms: number): string {
  const local = new Date(ms + offsetMs);
  return `${local.toISOString().slice(0, 19)}+09:00`;
}

/** The instant of a Tokyo date and "HH:MM". */
export const tokyoMs = (date: string, time: string): number => Date.parse(`${date}T${time}:00+09:00`);

/** Whether `date` is a real calendar date written YYYY-MM-DD. */
export function isCalendarDate(date: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return false;
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === date;
}

export const weekdayOf = (date: string): number => new Date(`${date}T00:00:00Z`).getUTCDay();

export interface SlotRef {
  shop: Shop;
  date: string;
  time: string;
  table: Shop["tables"][number];
  key: string;
}

const shortCode = (shop: Shop) => shop.shop_code.replace(/^rst_/, "");

export function slotKey(shop: Shop, date: string, time: string, tableNo: string): string {
  return `slot_${shortCode(shop)}_${date.replaceAll("-", "")}_${time.replace(":", "")}_${tableNo.toLowerCase()}`;
}

/** The slot a key names, or undefined when no such seating and table exist. */
export function parseSlotKey(key: string): SlotRef | undefined {
  const match = /^slot_([a-z0-9_]+)_(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})_([a-z0-9]+)$/.exec(key);
  if (!match) return undefined;
  const [, code, y, mo, d, h, mi, tableNo] = match;
  const shop = shopByCode.get(`rst_${code}`);
  const date = `${y}-${mo}-${d}`;
  const time = `${h}:${mi}`;
  const table = shop?.tables.find((t) => t.no.toLowerCase() === tableNo);
  if (!shop || !table || !isCalendarDate(date) || !shop.seatings.includes(time)) return undefined;
  if (shop.closed_weekdays.includes(weekdayOf(date))) return undefined;
  return { shop, date, time, table, key };
}

export interface NativeSlot {
  slot_key: string;
  start_at: string;
  end_at: string;
  seats_min: number;
  seats_max: number;
  table_type: string;
}

export function slotView(slot: SlotRef): NativeSlot {
  const start = tokyoMs(slot.date, slot.time);
  return {
    slot_key: slot.key,
    start_at: tokyoIso(start),
    end_at: tokyoIso(start + slot.shop.seating_minutes * 60_000),
    seats_min: slot.table.min,
    seats_max: slot.table.max,
    table_type: tableType(slot.table.no),
  };
}

const tableType = (no: string) =>
  ({ C: "counter", T: "table", K: "table", P: "private_room", Z: "tatami", R: "private_room" })[no[0] ?? "T"] ??
  "table";

/**
 * Free slots of the shop on the date for a party of `seats` (every table's without it), in time then table order;
 * past seatings excluded.
 */
export function freeSlots(
  shop: Shop,
  date: string,
  seats: number | undefined,
  nowMs: number,
  taken: (key: string) => boolean,
) {
  if (shop.closed_weekdays.includes(weekdayOf(date))) return [];
  return shop.seatings.flatMap((time) =>
    shop.tables
      .filter((table) => seats === undefined || (seats >= table.min && seats <= table.max))
      .map((table) => ({ shop, date, time, table, key: slotKey(shop, date, time, table.no) }))
      .filter((slot) => tokyoMs(date, time) > nowMs && !taken(slot.key))
      .map(slotView),
  );
}
