// The home-goods store's category tree (three levels under the root) and the product lines of each leaf category.
// Third-level categories have no banner image, so `imageUrl: null` occurs naturally.

export interface CategorySeed {
  code: string;
  name: string;
  nameEn: string;
  children?: readonly CategorySeed[];
  /** Product line name and typical list price in yen. */
  lines?: readonly (readonly [string, number])[];
}

const cat = (code: string, name: string, nameEn: string, children: CategorySeed[]): CategorySeed => ({
  code,
  name,
  nameEn,
  children,
});
const leaf = (code: string, name: string, nameEn: string, lines: [string, number][]): CategorySeed => ({
  code,
  name,
  nameEn,
  lines,
});

/** Featured collection: products are added to it besides their own leaf category. */
export const FEATURE_CATEGORY_CODE = "hg-90";

export const categorySeeds: readonly CategorySeed[] = [
  cat("hg-10", "家具", "Furniture", [
    leaf("hg-1010", "ソファ", "Sofas", [
      ["2人掛けソファ ファブリック", 39900],
      ["3人掛けソファ 本革", 129000],
      ["ソファベッド 折りたたみ", 29900],
      ["1人掛け ローソファ", 14900],
    ]),
    cat("hg-1020", "ベッド", "Beds", [
      leaf("hg-102010", "ベッドフレーム", "Bed frames", [
        ["すのこベッド シングル", 12900],
        ["収納付きベッド セミダブル", 34900],
        ["ロータイプ ベッドフレーム ダブル", 24900],
      ]),
      leaf("hg-102020", "マットレス", "Mattresses", [
        ["ポケットコイルマットレス シングル", 19900],
        ["高反発マットレス 三つ折り", 9990],
        ["ハイブリッドマットレス ダブル", 49900],
      ]),
    ]),
    cat("hg-1030", "テーブル", "Tables", [
      leaf("hg-103010", "ダイニングテーブル", "Dining tables", [
        ["天然木 ダイニングテーブル 4人用", 39900],
        ["伸長式 ダイニングテーブル", 59900],
        ["ダイニング5点セット", 69900],
      ]),
      leaf("hg-103020", "ローテーブル", "Low tables", [
        ["リフトアップ ローテーブル", 14900],
        ["こたつテーブル 長方形", 19900],
        ["ガラス天板 センターテーブル", 9990],
      ]),
    ]),
    leaf("hg-1040", "収納家具", "Storage furniture", [
      ["カラーボックス 3段", 1990],
      ["木製 チェスト 5段", 24900],
      ["テレビボード 幅150cm", 19900],
      ["本棚 幅90cm", 12900],
    ]),
  ]),
  cat("hg-20", "寝具", "Bedding", [
    leaf("hg-2010", "布団", "Futons", [
      ["羽毛掛け布団 シングル", 14900],
      ["洗える 敷き布団", 7990],
      ["布団3点セット", 9990],
    ]),
    leaf("hg-2020", "枕", "Pillows", [
      ["低反発枕", 2990],
      ["そば殻枕", 3490],
      ["高さ調整できる枕", 3990],
    ]),
    leaf("hg-2030", "シーツ・カバー", "Sheets & covers", [
      ["綿100% ボックスシーツ", 1990],
      ["冷感 敷きパッド", 2490],
      ["掛け布団カバー ガーゼ", 3990],
    ]),
  ]),
  cat("hg-30", "カーテン・ラグ", "Curtains & rugs", [
    leaf("hg-3010", "カーテン", "Curtains", [
      ["遮光1級カーテン 2枚組", 3990],
      ["ミラーレースカーテン 2枚組", 1990],
      ["断熱 遮熱カーテン", 4990],
    ]),
    leaf("hg-3020", "ラグ・カーペット", "Rugs & carpets", [
      ["洗えるラグ 190×190cm", 5990],
      ["い草ラグ 261×352cm", 12900],
      ["ふわふわ シャギーラグ", 7990],
    ]),
  ]),
  cat("hg-40", "キッチン用品・食器", "Kitchen & tableware", [
    cat("hg-4010", "調理器具", "Cookware", [
      leaf("hg-401010", "フライパン", "Frying pans", [
        ["IH対応 フライパン 26cm", 2990],
        ["取っ手が取れる フライパン9点セット", 6990],
        ["卵焼き器", 1490],
      ]),
      leaf("hg-401020", "鍋", "Pots", [
        ["ホーロー 両手鍋 20cm", 3990],
        ["土鍋 8号", 2990],
        ["圧力鍋 4.5L", 7990],
      ]),
    ]),
    leaf("hg-4020", "食器", "Tableware", [
      ["白磁 プレート 5枚組", 2490],
      ["波佐見焼 マグカップ", 1290],
      ["木製 汁椀", 990],
    ]),
    leaf("hg-4030", "キッチン収納", "Kitchen storage", [
      ["スパイスラック", 1490],
      ["シンク下 伸縮ラック", 2490],
      ["米びつ 10kg", 2990],
    ]),
  ]),
  cat("hg-50", "バス・洗面", "Bath", [
    leaf("hg-5010", "タオル", "Towels", [
      ["今治 フェイスタオル 3枚組", 1990],
      ["速乾 バスタオル", 1490],
      ["マイクロファイバー ヘアタオル", 990],
    ]),
    leaf("hg-5020", "バス用品", "Bath goods", [
      ["珪藻土バスマット", 1990],
      ["風呂いす 高さ40cm", 1990],
      ["バスラック ステンレス", 2990],
    ]),
  ]),
  cat("hg-60", "照明", "Lighting", [
    leaf("hg-6010", "シーリングライト", "Ceiling lights", [
      ["LEDシーリングライト 〜8畳", 6990],
      ["LEDシーリングライト 〜12畳 調光調色", 12900],
    ]),
    leaf("hg-6020", "スタンドライト", "Lamps", [
      ["フロアライト 北欧風", 5990],
      ["デスクライト LED", 3990],
      ["間接照明 テーブルランプ", 2990],
    ]),
  ]),
  cat("hg-70", "インテリア雑貨", "Decor", [
    leaf("hg-7010", "時計", "Clocks", [
      ["電波掛け時計 木目", 2990],
      ["目覚まし時計 デジタル", 1990],
    ]),
    leaf("hg-7020", "観葉植物", "Plants", [
      ["フェイクグリーン モンステラ", 3990],
      ["パキラ 6号鉢", 4990],
      ["サンスベリア 5号鉢", 3490],
    ]),
    leaf("hg-7030", "クッション", "Cushions", [
      ["クッションカバー 45×45cm", 990],
      ["ビーズクッション", 6990],
    ]),
  ]),
  cat("hg-80", "収納用品", "Storage", [
    leaf("hg-8010", "収納ケース", "Storage cases", [
      ["衣装ケース 引き出し 3段", 2990],
      ["やわらか 収納ボックス", 990],
      ["キャスター付き 収納ワゴン", 3990],
    ]),
    leaf("hg-8020", "ハンガー", "Hangers", [
      ["すべらないハンガー 10本組", 990],
      ["突っ張り ハンガーラック", 5990],
    ]),
  ]),
  { code: FEATURE_CATEGORY_CODE, name: "新生活応援特集", nameEn: "New life feature" },
];
