// Text a caller chose, shown to people (an error message, a line the CLI prints): the characters that would act
// rather than show are written as \u escapes. Control characters (C0, DEL, C1) could move a terminal's cursor or start
// a line that looks like another; bidirectional overrides and isolates would reorder what is shown around them;
// zero-width characters and line or paragraph separators would hide in, or break, an id that looks plain.

// U+061C (the Arabic letter mark) is a bidirectional control as much as U+200E and U+200F are.
const acting = /[\p{Cc}\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;

/** A character written as its \u escape. */
export const unicodeEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

export const printable = (text: string): string => text.replace(acting, unicodeEscape);
