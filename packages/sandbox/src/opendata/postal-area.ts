// The shape of a postal-code fixture table: one municipality and its towns, one `zipcode town townKana` per line.

export interface PostalArea {
  prefcode: string;
  /** Municipality (区 / 市区) in kanji and its reading in full-width katakana. */
  city: string;
  cityKana: string;
  /** One `zipcode town townKana` entry per line. */
  rows: string;
}

export const area = (prefcode: string, city: string, cityKana: string, rows: string): PostalArea => ({
  prefcode,
  city,
  cityKana,
  rows,
});
