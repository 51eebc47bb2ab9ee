// The delivery app's partner stores ("まんぷく便"): eight Tokyo kitchens and their menus in the app's native shape,
// prices in whole yen. Documented fixtures: `kitchen_hayate` (ramen, the default test kitchen), its sold-out
// `item_hayate_tsukemen`, `kitchen_maguro` (minimum order ¥2,000) and `kitchen_kaminari` (closed: refuses orders).

export interface MenuItem {
  item_code: string;
  name: string;
  name_en: string;
  description: string;
  price_yen: number;
  sold_out: boolean;
}

export interface Store {
  store_id: string;
  name: string;
  name_en: string;
  genre: string;
  area: string;
  address: string;
  delivery_fee_yen: number;
  min_order_yen: number;
  /** Minutes the kitchen needs; the courier's ride is `ride_min`. Together they make the first ETA. */
  prep_min: number;
  ride_min: number;
  open: boolean;
  menu: MenuItem[];
}

const item = (code: string, name: string, nameEn: string, description: string, price: number, soldOut = false) => ({
  item_code: code,
  name,
  name_en: nameEn,
  description,
  price_yen: price,
  sold_out: soldOut,
});

export const STORES: readonly Store[] = [
  {
    store_id: "kitchen_hayate",
    name: "新宿 麺屋 はやて",
    name_en: "Shinjuku Menya Hayate",
    genre: "ramen",
    area: "shinjuku",
    address: "東京都新宿区西新宿7-8-2 はやてビル1F",
    delivery_fee_yen: 350,
    min_order_yen: 1000,
    prep_min: 12,
    ride_min: 15,
    open: true,
    menu: [
      item("item_hayate_shoyu", "醤油らーめん", "Shoyu ramen", "鶏ガラと煮干しの澄んだ醤油スープ", 950),
      item("item_hayate_miso", "味噌らーめん", "Miso ramen", "北海道味噌と炒め野菜", 1050),
      item("item_hayate_gyoza", "焼き餃子 (6個)", "Pan-fried gyoza (6)", "羽根つき、自家製の皮", 450),
      item("item_hayate_chashu_don", "チャーシュー丼", "Chashu rice bowl", "炙りチャーシューと温玉", 480),
      item("item_hayate_tsukemen", "特製つけ麺", "Special tsukemen", "一日二十食限定", 1300, true),
    ],
  },
  {
    store_id: "kitchen_maguro",
    name: "築地 寿司 まぐろ亭",
    name_en: "Tsukiji Sushi Magurotei",
    genre: "sushi",
    area: "tsukiji",
    address: "東京都中央区築地4-10-5",
    delivery_fee_yen: 500,
    min_order_yen: 2000,
    prep_min: 20,
    ride_min: 18,
    open: true,
    menu: [
      item("item_maguro_tokujo", "特上にぎり (12貫)", "Premium nigiri (12)", "本まぐろ大トロ入り", 3800),
      item("item_maguro_tekka", "鉄火丼", "Tuna rice bowl", "赤身たっぷり", 1800),
      item("item_maguro_salmon_roll", "サーモン巻", "Salmon roll", "8切れ", 900),
      item("item_maguro_chawanmushi", "茶碗蒸し", "Chawanmushi", "海老と銀杏", 450),
    ],
  },
  {
    store_id: "kitchen_akatsuki",
    name: "神保町 欧風カレー あかつき",
    name_en: "Jimbocho Curry Akatsuki",
    genre: "curry",
    area: "jimbocho",
    address: "東京都千代田区神田神保町2-3-1",
    delivery_fee_yen: 300,
    min_order_yen: 1200,
    prep_min: 10,
    ride_min: 16,
    open: true,
    menu: [
      item("item_akatsuki_beef", "ビーフカレー", "Beef curry", "じっくり煮込んだ欧風ルウ", 1650),
      item("item_akatsuki_chicken", "チキンカレー", "Chicken curry", "骨付きもも肉", 1450),
      item("item_akatsuki_vegetable", "野菜カレー", "Vegetable curry", "季節の野菜を素揚げで", 1350),
      item("item_akatsuki_potato", "じゃがバター", "Potato with butter", "カレーの定番のお供", 300),
    ],
  },
  {
    store_id: "kitchen_irodori",
    name: "渋谷 お弁当 いろどり",
    name_en: "Shibuya Bento Irodori",
    genre: "bento",
    area: "shibuya",
    address: "東京都渋谷区宇田川町31-2",
    delivery_fee_yen: 300,
    min_order_yen: 1000,
    prep_min: 8,
    ride_min: 12,
    open: true,
    menu: [
      item("item_irodori_makunouchi", "幕の内弁当", "Makunouchi bento", "焼き魚と季節の煮物", 1200),
      item("item_irodori_karaage", "唐揚げ弁当", "Karaage bento", "特製醤油だれ", 890),
      item("item_irodori_salmon", "鮭弁当", "Grilled salmon bento", "紅鮭の塩焼き", 850),
      item("item_irodori_miso_soup", "豚汁", "Pork miso soup", "具だくさん", 250),
    ],
  },
  {
    store_id: "kitchen_torikichi",
    name: "中目黒 焼鳥 とり吉",
    name_en: "Nakameguro Yakitori Torikichi",
    genre: "yakitori",
    area: "nakameguro",
    address: "東京都目黒区上目黒1-20-7",
    delivery_fee_yen: 400,
    min_order_yen: 1500,
    prep_min: 15,
    ride_min: 14,
    open: true,
    menu: [
      item("item_torikichi_moriawase", "焼鳥盛り合わせ (8本)", "Yakitori assortment (8)", "塩とたれ半々", 1980),
      item("item_torikichi_tsukune", "つくね (2本)", "Tsukune (2)", "卵黄添え", 520),
      item("item_torikichi_oyakodon", "親子丼", "Oyakodon", "地鶏と半熟卵", 1100),
    ],
  },
  {
    store_id: "kitchen_katsuya",
    name: "上野 とんかつ かつ屋 みやこ",
    name_en: "Ueno Tonkatsu Miyako",
    genre: "tonkatsu",
    area: "ueno",
    address: "東京都台東区上野6-11-9",
    delivery_fee_yen: 350,
    min_order_yen: 1000,
    prep_min: 15,
    ride_min: 17,
    open: true,
    menu: [
      item("item_katsuya_rosu", "ロースかつ弁当", "Pork loin katsu bento", "厚切り200g", 1480),
      item("item_katsuya_hire", "ヒレかつ弁当", "Pork fillet katsu bento", "柔らかヒレ", 1580),
      item("item_katsuya_katsusando", "カツサンド", "Katsu sandwich", "4切れ", 980),
    ],
  },
  {
    store_id: "kitchen_sanuki",
    name: "赤坂 讃岐うどん 麦わら",
    name_en: "Akasaka Sanuki Udon Mugiwara",
    genre: "udon",
    area: "akasaka",
    address: "東京都港区赤坂3-13-4",
    delivery_fee_yen: 300,
    min_order_yen: 900,
    prep_min: 9,
    ride_min: 13,
    open: true,
    menu: [
      item("item_sanuki_kitsune", "きつねうどん", "Kitsune udon", "甘く煮たお揚げ", 780),
      item("item_sanuki_niku", "肉うどん", "Beef udon", "甘辛い牛肉", 980),
      item("item_sanuki_tendon", "ミニ天丼", "Mini tempura bowl", "海老と野菜", 650),
    ],
  },
  {
    store_id: "kitchen_kaminari",
    name: "浅草 天丼 かみなり",
    name_en: "Asakusa Tendon Kaminari",
    genre: "tempura",
    area: "asakusa",
    address: "東京都台東区浅草1-32-6",
    delivery_fee_yen: 400,
    min_order_yen: 1200,
    prep_min: 14,
    ride_min: 16,
    open: false,
    menu: [
      item("item_kaminari_tendon", "江戸前天丼", "Edomae tempura bowl", "胡麻油で揚げた海老と穴子", 1600),
      item("item_kaminari_kakiage", "かき揚げ丼", "Kakiage bowl", "桜海老と玉ねぎ", 1200),
    ],
  },
];

export const storeById = new Map(STORES.map((store) => [store.store_id, store]));
