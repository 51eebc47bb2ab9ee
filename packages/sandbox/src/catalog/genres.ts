// The catalogue's genre tree (two levels under the root genre 0) and, per leaf genre, the product lines it sells.

export interface ProductLine {
  name: string;
  /** Typical price in yen before the variant's multiplier. */
  basePrice: number;
  shop: string;
  /** Variant label and its price multiplier. */
  variants: readonly (readonly [string, number])[];
}

export interface GenreSeed {
  genreId: number;
  genreName: string;
  genreNameEn: string;
  children?: readonly GenreSeed[];
  lines?: readonly ProductLine[];
}

const sizes = (...labels: string[]): (readonly [string, number])[] => labels.map((l, i) => [l, 1 + i * 0.6] as const);
const colors = (...labels: string[]): (readonly [string, number])[] => labels.map((l) => [l, 1] as const);
const line = (name: string, basePrice: number, shop: string, variants: ProductLine["variants"]): ProductLine => ({
  name,
  basePrice,
  shop,
  variants,
});
const leaf = (genreId: number, genreName: string, genreNameEn: string, lines: ProductLine[]): GenreSeed => ({
  genreId,
  genreName,
  genreNameEn,
  lines,
});
const top = (genreId: number, genreName: string, genreNameEn: string, children: GenreSeed[]): GenreSeed => ({
  genreId,
  genreName,
  genreNameEn,
  children,
});

export const genreSeeds: readonly GenreSeed[] = [
  top(100, "食品", "Food", [
    leaf(101, "米・雑穀", "Rice & grains", [
      line("新潟県産 コシヒカリ 令和6年産", 3980, "越後米穀店", sizes("5kg", "10kg", "20kg")),
      line("北海道産 ゆめぴりか 無洗米", 4280, "北の大地ストア", sizes("5kg", "10kg")),
      line("国産 十六穀米 お徳用", 1280, "穀物のたなか", sizes("500g", "1kg")),
    ]),
    leaf(102, "調味料", "Seasonings", [
      line("丸大豆しょうゆ 特選", 498, "小豆島醤油蔵", sizes("500ml", "1L")),
      line("天然醸造 信州味噌 無添加", 780, "信州みそ本舗", sizes("750g", "1kg")),
      line("瀬戸内 藻塩", 580, "海の恵み工房", sizes("200g", "500g")),
    ]),
    leaf(103, "お菓子", "Sweets & snacks", [
      line("京都 抹茶ラングドシャ", 1080, "京菓子さくら", sizes("12枚入", "24枚入")),
      line("北海道 バターサンド", 1380, "北の大地ストア", sizes("5個入", "10個入")),
      line("国産 素焼きミックスナッツ", 1580, "ナッツ工房まめや", sizes("500g", "1kg")),
    ]),
  ]),
  top(200, "水・ソフトドリンク", "Drinks", [
    leaf(201, "お茶", "Tea", [
      line("静岡県産 深蒸し煎茶", 1280, "駿河茶園", sizes("100g", "200g")),
      line("国産 麦茶 ティーバッグ", 398, "駿河茶園", sizes("52袋", "104袋")),
      line("緑茶 ペットボトル 525ml×24本", 2480, "ひなたドリンク館", sizes("1ケース", "2ケース")),
    ]),
    leaf(202, "コーヒー", "Coffee", [
      line("スペシャルティコーヒー豆 深煎り", 1680, "珈琲焙煎所 ひなた", sizes("200g", "500g")),
      line("ドリップバッグ アソート", 1480, "珈琲焙煎所 ひなた", sizes("30袋", "60袋")),
    ]),
    leaf(203, "水・炭酸水", "Water & sparkling", [
      line("天然水 2L×6本", 980, "ひなたドリンク館", sizes("1ケース", "2ケース")),
      line("強炭酸水 500ml×24本", 1980, "ひなたドリンク館", sizes("1ケース", "2ケース")),
    ]),
  ]),
  top(300, "キッチン用品・食器", "Kitchen & tableware", [
    leaf(301, "調理器具", "Cookware", [
      line("燕三条 ステンレス片手鍋", 3980, "燕三条キッチン", sizes("16cm", "18cm", "20cm")),
      line("南部鉄器 鉄フライパン", 5480, "岩手鋳物工房", sizes("20cm", "24cm")),
      line("関の刃物 三徳包丁", 6980, "関刃物センター", sizes("165mm", "180mm")),
    ]),
    leaf(302, "食器", "Tableware", [
      line("有田焼 小皿 5枚セット", 2980, "有田陶器市場", colors("藍", "白磁", "赤絵")),
      line("美濃焼 ご飯茶碗", 1280, "美濃焼窯元", colors("白", "黒", "灰釉")),
      line("山中塗 汁椀", 1980, "漆器のやまなか", colors("朱", "黒")),
    ]),
    leaf(303, "保存容器", "Food storage", [
      line("耐熱ガラス 保存容器 3点セット", 2480, "燕三条キッチン", colors("クリア", "グレー蓋")),
      line("琺瑯 保存容器 深型", 1980, "燕三条キッチン", sizes("M", "L")),
    ]),
  ]),
  top(400, "家電", "Home appliances", [
    leaf(401, "キッチン家電", "Kitchen appliances", [
      line("IH炊飯器 5.5合炊き", 24800, "ひなた電機", colors("ホワイト", "ブラック")),
      line("電気ケトル 1.0L 温度調節機能付き", 7980, "ひなた電機", colors("ホワイト", "マットブラック")),
      line("オーブンレンジ 26L", 39800, "ひなた電機", colors("ホワイト", "ブラック")),
    ]),
    leaf(402, "生活家電", "Household appliances", [
      line("コードレス掃除機 サイクロン式", 29800, "ひなた電機", colors("シルバー", "ネイビー")),
      line("ドラム式洗濯乾燥機 10kg", 198000, "ひなた電機", colors("左開き", "右開き")),
      line("ロボット掃除機 水拭き対応", 49800, "ひなた電機", colors("ホワイト", "ブラック")),
    ]),
    leaf(403, "季節家電", "Seasonal appliances", [
      line("DCモーター扇風機 リモコン付き", 12800, "ひなた電機", colors("ホワイト", "ブラウン")),
      line("加湿空気清浄機 〜23畳", 34800, "ひなた電機", colors("ホワイト", "ブラック")),
      line("セラミックファンヒーター 人感センサー付き", 8980, "ひなた電機", colors("ホワイト", "ベージュ")),
    ]),
  ]),
  top(500, "日用品・生活雑貨", "Daily necessities", [
    leaf(501, "洗剤・柔軟剤", "Detergents", [
      line("液体洗濯洗剤 詰め替え 超特大", 898, "くらしのひなた", sizes("1.9kg", "3.6kg")),
      line("食器用洗剤 グレープフルーツの香り", 328, "くらしのひなた", sizes("本体", "詰め替え×3")),
    ]),
    leaf(502, "ティッシュ・トイレットペーパー", "Paper goods", [
      line("トイレットペーパー ダブル 12ロール", 598, "くらしのひなた", sizes("1パック", "6パック")),
      line("ボックスティッシュ 5箱", 398, "くらしのひなた", sizes("1パック", "12パック")),
    ]),
    leaf(503, "バス用品", "Bath", [
      line("今治タオル バスタオル", 2980, "今治タオル工房", colors("ホワイト", "ネイビー", "ベージュ")),
      line("珪藻土バスマット", 2480, "くらしのひなた", colors("ホワイト", "グレー")),
    ]),
  ]),
  top(600, "美容・コスメ", "Beauty", [
    leaf(601, "スキンケア", "Skin care", [
      line("高保湿 化粧水 しっとりタイプ", 1980, "ひなたコスメ", sizes("200ml", "400ml")),
      line("日焼け止め SPF50+ PA++++", 1280, "ひなたコスメ", sizes("50g", "100g")),
    ]),
    leaf(602, "ヘアケア", "Hair care", [
      line("アミノ酸 シャンプー ボタニカル", 1480, "ひなたコスメ", sizes("本体", "詰め替え")),
      line("ヘアオイル 椿", 1680, "五島つばき本舗", sizes("60ml", "120ml")),
    ]),
  ]),
  top(700, "ファッション", "Fashion", [
    leaf(701, "トップス", "Tops", [
      line("オーガニックコットン 半袖Tシャツ", 2980, "ひなたアパレル", colors("ホワイト", "ブラック", "ネイビー")),
      line("ウォッシャブル ニットセーター", 4980, "ひなたアパレル", colors("アイボリー", "チャコール")),
    ]),
    leaf(702, "バッグ", "Bags", [
      line("帆布 トートバッグ", 3980, "倉敷帆布工房", colors("生成り", "カーキ", "ネイビー")),
      line("撥水 リュックサック 20L", 6980, "ひなたアパレル", colors("ブラック", "グレー")),
    ]),
    leaf(703, "靴", "Shoes", [
      line("軽量 ウォーキングシューズ", 5980, "ひなたシューズ", sizes("24.0cm", "25.0cm", "26.0cm")),
      line("防水 レインブーツ", 3980, "ひなたシューズ", colors("ブラック", "カーキ")),
    ]),
  ]),
  top(800, "文房具・事務用品", "Stationery", [
    leaf(801, "筆記具", "Writing", [
      line("ゲルインクボールペン 0.5mm 10本", 980, "文具のひなた", colors("黒", "青", "赤")),
      line("万年筆 細字 国産", 8800, "文具のひなた", colors("ブラック", "ボルドー")),
    ]),
    leaf(802, "ノート・手帳", "Notebooks", [
      line("方眼ノート A5 5冊パック", 880, "文具のひなた", colors("ホワイト", "クラフト")),
      line("2026年 手帳 B6 週間レフト", 1650, "文具のひなた", colors("ネイビー", "テラコッタ")),
    ]),
  ]),
  top(900, "スポーツ・アウトドア", "Sports & outdoors", [
    leaf(901, "キャンプ用品", "Camping", [
      line("ワンタッチテント 4人用", 12800, "ひなたアウトドア", colors("ベージュ", "オリーブ")),
      line("アウトドアチェア 折りたたみ", 3980, "ひなたアウトドア", colors("ブラック", "サンド")),
      line("ステンレス 焚き火台", 6980, "燕三条キッチン", sizes("ソロ", "ファミリー")),
    ]),
    leaf(902, "ランニング・フィットネス", "Running & fitness", [
      line("ヨガマット 厚さ10mm", 2480, "ひなたスポーツ", colors("ピンク", "ネイビー", "グレー")),
      line("可変式ダンベル 最大20kg", 9800, "ひなたスポーツ", sizes("1個", "2個セット")),
    ]),
  ]),
];
