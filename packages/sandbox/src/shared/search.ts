// Keyword search as the sandboxes' upstreams do it: a keyword and the text it searches are compared after NFKC and
// lower-casing, so that full-width letters, digits and signs and half-width katakana (５ｋｇ, ｺｼﾋｶﾘ, ＧＹＯＺＡ, ２－１０)
// match their usual forms, as upper and lower case do.

export const foldForSearch = (text: string): string => text.normalize("NFKC").toLowerCase();

/** The folded terms of a keyword, split at spaces (an ideographic space too); none for an empty keyword. */
export const searchTerms = (keyword: string | undefined): string[] =>
  foldForSearch(keyword ?? "")
    .split(/[\s\u3000]+/)
    .filter((term) => term !== "");
