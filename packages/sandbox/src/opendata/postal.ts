// Postal-code index built from the fixture tables: 7-digit code → one or more addresses, zipcloud-style fields.

import { postalOtherCities } from "./postal-other.ts";
import { postalTokyoCentral } from "./postal-tokyo-central.ts";
import { postalTokyoEast } from "./postal-tokyo-east.ts";
import { postalTokyoNorth } from "./postal-tokyo-north.ts";
import { postalTokyoWest } from "./postal-tokyo-west.ts";

/** zipcloud's result shape: prefecture, municipality, town, each in kanji (address*) and katakana (kana*). */
export interface PostalAddress {
  zipcode: string;
  prefcode: string;
  address1: string;
  address2: string;
  address3: string;
  kana1: string;
  kana2: string;
  kana3: string;
}

const PREFECTURES: Record<string, readonly [string, string]> = {
  "01": ["北海道", "ホッカイドウ"],
  "04": ["宮城県", "ミヤギケン"],
  "13": ["東京都", "トウキョウト"],
  "14": ["神奈川県", "カナガワケン"],
  "23": ["愛知県", "アイチケン"],
  "26": ["京都府", "キョウトフ"],
  "27": ["大阪府", "オオサカフ"],
  "40": ["福岡県", "フクオカケン"],
};

export function buildPostalIndex(): Map<string, PostalAddress[]> {
  const index = new Map<string, PostalAddress[]>();
  const areas = [
    ...postalTokyoCentral,
    ...postalTokyoEast,
    ...postalTokyoWest,
    ...postalTokyoNorth,
    ...postalOtherCities,
  ];
  for (const { prefcode, city, cityKana, rows } of areas) {
    const prefecture = PREFECTURES[prefcode];
    if (prefecture === undefined) throw new Error(`Unknown prefecture code ${prefcode}`);
    for (const row of rows.split("\n")) {
      const [zipcode, town, townKana] = row.trim().split(/\s+/);
      if (zipcode === undefined || zipcode === "" || town === undefined || townKana === undefined) continue;
      if (!/^\d{7}$/.test(zipcode)) throw new Error(`Malformed postal code fixture: ${row}`);
      const entry: PostalAddress = {
        zipcode,
        prefcode,
        address1: prefecture[0],
        address2: city,
        address3: town,
        kana1: prefecture[1],
        kana2: cityKana,
        kana3: townKana,
      };
      index.set(zipcode, [...(index.get(zipcode) ?? []), entry]);
    }
  }
  return index;
}
