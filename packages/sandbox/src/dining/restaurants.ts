// The booking site's venues ("東京テーブル" partner API): ten Tokyo restaurants in the site's native shape. Three are
// documented test fixtures: `rst_instant` confirms at once, `rst_approval` confirms after the venue's delay, and
// `rst_strict` cannot be cancelled once confirmed. Seatings are Tokyo wall-clock times; each table is one slot per
// seating.

export type CancelRule = { kind: "hours_before"; hours: number } | { kind: "none_after_confirmation" };

export interface Shop {
  shop_code: string;
  name: string;
  name_en: string;
  genre: string;
  area: string;
  address: string;
  station: string;
  phone: string;
  /** `auto`: bookings are confirmed at once; `request`: the venue confirms them later. */
  confirm_mode: "auto" | "request";
  cancel_rule: CancelRule;
  budget_jpy: { lunch: number | null; dinner: number };
  /** Start times ("HH:MM", Tokyo) of the seatings, each lasting `seating_minutes`. */
  seatings: string[];
  seating_minutes: number;
  tables: { no: string; min: number; max: number }[];
  /** Whether walk-in parties can queue (waitlist). */
  queue: boolean;
  /** Days without service, 0 = Sunday. */
  closed_weekdays: number[];
}

const hours = (n: number): CancelRule => ({ kind: "hours_before", hours: n });

export const SHOPS: readonly Shop[] = [
  {
    shop_code: "rst_instant",
    name: "銀座 鮨 はなぶさ",
    name_en: "Ginza Sushi Hanabusa",
    genre: "sushi",
    area: "ginza",
    address: "東京都中央区銀座6-4-12 花房ビル2F",
    station: "銀座駅 徒歩3分",
    phone: "03-3571-0812",
    confirm_mode: "auto",
    cancel_rule: hours(24),
    budget_jpy: { lunch: 8800, dinner: 22000 },
    seatings: ["17:30", "20:00"],
    seating_minutes: 120,
    tables: [
      { no: "C1", min: 1, max: 2 },
      { no: "C2", min: 1, max: 2 },
      { no: "T1", min: 2, max: 4 },
      { no: "T2", min: 2, max: 6 },
    ],
    queue: true,
    closed_weekdays: [],
  },
  {
    shop_code: "rst_approval",
    name: "神楽坂 懐石 やまぶき",
    name_en: "Kagurazaka Kaiseki Yamabuki",
    genre: "kaiseki",
    area: "kagurazaka",
    address: "東京都新宿区神楽坂3-6-28",
    station: "神楽坂駅 徒歩5分",
    phone: "03-3260-4417",
    confirm_mode: "request",
    cancel_rule: hours(48),
    budget_jpy: { lunch: 6600, dinner: 18000 },
    seatings: ["18:00", "20:00"],
    seating_minutes: 120,
    tables: [
      { no: "K1", min: 2, max: 4 },
      { no: "K2", min: 2, max: 6 },
      { no: "P1", min: 4, max: 8 },
    ],
    queue: true,
    closed_weekdays: [],
  },
  {
    shop_code: "rst_strict",
    name: "六本木 フレンチ ル・ソレイユ",
    name_en: "Roppongi French Le Soleil",
    genre: "french",
    area: "roppongi",
    address: "東京都港区六本木7-14-3 ソレイユ六本木1F",
    station: "六本木駅 徒歩4分",
    phone: "03-5413-2290",
    confirm_mode: "auto",
    cancel_rule: { kind: "none_after_confirmation" },
    budget_jpy: { lunch: 5500, dinner: 16500 },
    seatings: ["18:00", "20:30"],
    seating_minutes: 150,
    tables: [
      { no: "T1", min: 1, max: 2 },
      { no: "T2", min: 2, max: 4 },
      { no: "T3", min: 4, max: 6 },
    ],
    queue: false,
    closed_weekdays: [],
  },
  {
    shop_code: "rst_ebisu_yakitori",
    name: "恵比寿 焼鳥 とりまさ",
    name_en: "Ebisu Yakitori Torimasa",
    genre: "yakitori",
    area: "ebisu",
    address: "東京都渋谷区恵比寿西1-9-4",
    station: "恵比寿駅 徒歩2分",
    phone: "03-3461-7723",
    confirm_mode: "auto",
    cancel_rule: hours(3),
    budget_jpy: { lunch: null, dinner: 6000 },
    seatings: ["17:00", "18:30", "20:00", "21:30"],
    seating_minutes: 90,
    tables: [
      { no: "C1", min: 1, max: 2 },
      { no: "C2", min: 1, max: 2 },
      { no: "C3", min: 1, max: 2 },
      { no: "T1", min: 2, max: 4 },
    ],
    queue: true,
    closed_weekdays: [0],
  },
  {
    shop_code: "rst_shibuya_ramen",
    name: "渋谷 らぁ麺 かいと",
    name_en: "Shibuya Ramen Kaito",
    genre: "ramen",
    area: "shibuya",
    address: "東京都渋谷区道玄坂1-18-6",
    station: "渋谷駅 徒歩4分",
    phone: "03-3464-0951",
    confirm_mode: "auto",
    cancel_rule: hours(1),
    budget_jpy: { lunch: 1200, dinner: 1200 },
    // Counter seats only, first come first served: the queue is the only way in.
    seatings: [],
    seating_minutes: 30,
    tables: [],
    queue: true,
    closed_weekdays: [3],
  },
  {
    shop_code: "rst_asakusa_tempura",
    name: "浅草 天麩羅 みやこ",
    name_en: "Asakusa Tempura Miyako",
    genre: "tempura",
    area: "asakusa",
    address: "東京都台東区浅草1-32-11",
    station: "浅草駅 徒歩3分",
    phone: "03-3841-2286",
    confirm_mode: "request",
    cancel_rule: hours(24),
    budget_jpy: { lunch: 3800, dinner: 9800 },
    seatings: ["11:30", "13:00", "18:00", "19:30"],
    seating_minutes: 90,
    tables: [
      { no: "C1", min: 1, max: 2 },
      { no: "T1", min: 2, max: 4 },
      { no: "Z1", min: 4, max: 8 },
    ],
    queue: false,
    closed_weekdays: [2],
  },
  {
    shop_code: "rst_shinjuku_robata",
    name: "新宿 炉端 いろり",
    name_en: "Shinjuku Robata Irori",
    genre: "izakaya",
    area: "shinjuku",
    address: "東京都新宿区西新宿1-4-5 いろりビルB1",
    station: "新宿駅 徒歩5分",
    phone: "03-3344-6110",
    confirm_mode: "auto",
    cancel_rule: hours(2),
    budget_jpy: { lunch: null, dinner: 5000 },
    seatings: ["17:00", "19:00", "21:00"],
    seating_minutes: 120,
    tables: [
      { no: "T1", min: 2, max: 4 },
      { no: "T2", min: 2, max: 4 },
      { no: "Z1", min: 4, max: 12 },
    ],
    queue: true,
    closed_weekdays: [],
  },
  {
    shop_code: "rst_nakameguro_trattoria",
    name: "中目黒 トラットリア ヴェルデ",
    name_en: "Nakameguro Trattoria Verde",
    genre: "italian",
    area: "nakameguro",
    address: "東京都目黒区上目黒1-20-8",
    station: "中目黒駅 徒歩3分",
    phone: "03-3719-5582",
    confirm_mode: "auto",
    cancel_rule: hours(24),
    budget_jpy: { lunch: 2200, dinner: 7000 },
    seatings: ["11:30", "13:30", "18:00", "20:00"],
    seating_minutes: 120,
    tables: [
      { no: "T1", min: 1, max: 2 },
      { no: "T2", min: 2, max: 4 },
      { no: "T3", min: 2, max: 6 },
    ],
    queue: true,
    closed_weekdays: [1],
  },
  {
    shop_code: "rst_marunouchi_soba",
    name: "丸の内 蕎麦 さらしな",
    name_en: "Marunouchi Soba Sarashina",
    genre: "soba",
    area: "marunouchi",
    address: "東京都千代田区丸の内2-7-3 東京ビルB1",
    station: "東京駅 徒歩2分",
    phone: "03-3211-4408",
    confirm_mode: "auto",
    cancel_rule: hours(2),
    budget_jpy: { lunch: 1800, dinner: 4500 },
    seatings: ["11:30", "12:30", "18:00", "19:30"],
    seating_minutes: 60,
    tables: [
      { no: "T1", min: 1, max: 2 },
      { no: "T2", min: 1, max: 4 },
    ],
    queue: true,
    closed_weekdays: [0],
  },
  {
    shop_code: "rst_omotesando_yakiniku",
    name: "表参道 焼肉 はなび",
    name_en: "Omotesando Yakiniku Hanabi",
    genre: "yakiniku",
    area: "omotesando",
    address: "東京都港区南青山5-8-1 はなびビル3F",
    station: "表参道駅 徒歩2分",
    phone: "03-6419-3376",
    confirm_mode: "request",
    cancel_rule: hours(24),
    budget_jpy: { lunch: 2500, dinner: 12000 },
    seatings: ["17:30", "19:30", "21:30"],
    seating_minutes: 120,
    tables: [
      { no: "T1", min: 2, max: 4 },
      { no: "T2", min: 2, max: 4 },
      { no: "R1", min: 4, max: 10 },
    ],
    queue: false,
    closed_weekdays: [],
  },
];

export const shopByCode = new Map(SHOPS.map((shop) => [shop.shop_code, shop]));

/** The largest party any table of the shop seats (0 for queue-only shops). */
export const maxSeats = (shop: Shop): number => Math.max(0, ...shop.tables.map((t) => t.max));
