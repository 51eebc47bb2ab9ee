// Japanese public holidays computed from the Act on National Holidays as amended up to 2021: fixed days, Happy Monday
// days, equinoxes, the 2019 enthronement days, the Olympic moves of 2020 and 2021, substitute holidays (振替休日) and
// citizens' holidays (国民の休日). Covers 2000 to 2035; the equinox formula is the one the almanac uses for 1980–2099.

export const FIRST_HOLIDAY_YEAR = 2000;
export const LAST_HOLIDAY_YEAR = 2035;

export type HolidayType = "national" | "substitute" | "citizens";

export interface Holiday {
  date: string;
  dayOfWeek: string;
  dayOfWeekEn: string;
  name: string;
  nameEn: string;
  type: HolidayType;
}

const WEEKDAYS_JA = ["日", "月", "火", "水", "木", "金", "土"];
const WEEKDAYS_EN = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

const utc = (year: number, month: number, day: number): Date => new Date(Date.UTC(year, month - 1, day));
const iso = (date: Date): string => date.toISOString().slice(0, 10);
const addDays = (date: Date, days: number): Date => new Date(date.getTime() + days * 86_400_000);

/** Day of month of the n-th Monday. */
function nthMonday(year: number, month: number, n: number): number {
  const firstWeekday = utc(year, month, 1).getUTCDay();
  return 1 + ((8 - firstWeekday) % 7) + (n - 1) * 7;
}

const springEquinox = (y: number): number => Math.floor(20.8431 + 0.242194 * (y - 1980) - Math.floor((y - 1980) / 4));
const autumnEquinox = (y: number): number => Math.floor(23.2488 + 0.242194 * (y - 1980) - Math.floor((y - 1980) / 4));

type Named = readonly [month: number, day: number, name: string, nameEn: string];

function nationalHolidays(y: number): Named[] {
  const list: Named[] = [
    [1, 1, "元日", "New Year's Day"],
    [1, nthMonday(y, 1, 2), "成人の日", "Coming of Age Day"],
    [2, 11, "建国記念の日", "National Foundation Day"],
    [3, springEquinox(y), "春分の日", "Vernal Equinox Day"],
    y >= 2007 ? [4, 29, "昭和の日", "Showa Day"] : [4, 29, "みどりの日", "Greenery Day"],
    [5, 3, "憲法記念日", "Constitution Memorial Day"],
    [5, 5, "こどもの日", "Children's Day"],
    [9, autumnEquinox(y), "秋分の日", "Autumnal Equinox Day"],
    [11, 3, "文化の日", "Culture Day"],
    [11, 23, "勤労感謝の日", "Labour Thanksgiving Day"],
  ];
  if (y >= 2007) list.push([5, 4, "みどりの日", "Greenery Day"]);
  if (y >= 2020) list.push([2, 23, "天皇誕生日", "Emperor's Birthday"]);
  if (y <= 2018) list.push([12, 23, "天皇誕生日", "Emperor's Birthday"]);
  if (y === 2019) {
    list.push([5, 1, "天皇の即位の日", "Enthronement Day"]);
    list.push([10, 22, "即位礼正殿の儀の行われる日", "Enthronement Ceremony Day"]);
  }
  // The Tokyo Olympics moved Marine Day, Sports Day and Mountain Day in 2020 and 2021.
  const moved: Record<number, [marine: number, sports: number, mountain: number]> = {
    2020: [23, 24, 10],
    2021: [22, 23, 8],
  };
  const olympic = moved[y];
  if (olympic !== undefined) {
    list.push([7, olympic[0], "海の日", "Marine Day"]);
    list.push([7, olympic[1], "スポーツの日", "Sports Day"]);
    list.push([8, olympic[2], "山の日", "Mountain Day"]);
  } else {
    list.push(y <= 2002 ? [7, 20, "海の日", "Marine Day"] : [7, nthMonday(y, 7, 3), "海の日", "Marine Day"]);
    const october = nthMonday(y, 10, 2);
    list.push(
      y >= 2020 ? [10, october, "スポーツの日", "Sports Day"] : [10, october, "体育の日", "Health and Sports Day"],
    );
    if (y >= 2016) list.push([8, 11, "山の日", "Mountain Day"]);
  }
  list.push(
    y <= 2002
      ? [9, 15, "敬老の日", "Respect for the Aged Day"]
      : [9, nthMonday(y, 9, 3), "敬老の日", "Respect for the Aged Day"],
  );
  return list;
}

export function holidaysOf(year: number): Holiday[] {
  const national = new Map<string, Named>();
  for (const named of nationalHolidays(year)) national.set(iso(utc(year, named[0], named[1])), named);
  const extra = new Map<string, [string, string, HolidayType]>();

  // 振替休日: a holiday on Sunday moves to the next day that is not itself a holiday (before 2007: the Monday).
  for (const date of national.keys()) {
    const day = new Date(`${date}T00:00:00Z`);
    if (day.getUTCDay() !== 0) continue;
    let next = addDays(day, 1);
    if (year >= 2007) while (national.has(iso(next))) next = addDays(next, 1);
    if (!national.has(iso(next))) extra.set(iso(next), ["振替休日", "Substitute Holiday", "substitute"]);
  }
  // 国民の休日: an ordinary day between two holidays (before 2007 not on a Sunday).
  for (const date of national.keys()) {
    const between = addDays(new Date(`${date}T00:00:00Z`), 1);
    const key = iso(between);
    if (national.has(key) || extra.has(key) || !national.has(iso(addDays(between, 1)))) continue;
    if (year < 2007 && between.getUTCDay() === 0) continue;
    extra.set(key, ["国民の休日", "Citizens' Holiday", "citizens"]);
  }

  const all: Holiday[] = [];
  const push = (date: string, name: string, nameEn: string, type: HolidayType): void => {
    if (!date.startsWith(String(year))) return;
    const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
    all.push({ date, dayOfWeek: WEEKDAYS_JA[weekday]!, dayOfWeekEn: WEEKDAYS_EN[weekday]!, name, nameEn, type });
  };
  for (const [date, named] of national) push(date, named[2], named[3], "national");
  for (const [date, [name, nameEn, type]] of extra) push(date, name, nameEn, type);
  return all.sort((a, b) => a.date.localeCompare(b.date));
}
