// Text in a JSON value that no field takes, since the stores could not keep it as given (the NUL character, a lone
// surrogate), found with every place it is at: for request bodies, an alias's path and inbound hooks alike.
import { type FieldProblem, type GatewayError, invalidRequest, maxProblems } from "./errors.ts";

/** A value met in a walk of the body: a member's name (undefined for the body itself), its value, its container. */
interface Visit {
  name: string | undefined;
  value: unknown;
  parent: Visit | undefined;
}

/**
 * A problem for `value` and each member in it, nested ones included, that `problemOf` finds one with (given the
 * member's name, undefined for `value` itself, and its value), at its JSON pointer, in the order of the document; the
 * first `maxProblems` of them, and no more once their pointers add up to 256 KiB: a pointer is as long as its member is
 * deep, and 10,000 places 20,000 levels down would be an answer of 350 MB.
 */
export function problemsWhere(
  value: unknown,
  problemOf: (name: string | undefined, member: unknown) => string | undefined,
): FieldProblem[] {
  const found: FieldProblem[] = [];
  let pointerBudget = 256 * 1024;
  // A stack rather than recursion: 1 MiB of JSON can nest hundreds of thousands of levels deep. Pointers are built
  // only for the members with a problem.
  const stack: Visit[] = [{ name: undefined, value, parent: undefined }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const message = problemOf(next.name, next.value);
    if (message !== undefined) {
      const path = pointerOf(next);
      pointerBudget -= path.length;
      if (found.push({ path, message }) === maxProblems || pointerBudget <= 0) break;
    }
    const members = next.value;
    if (members === null || typeof members !== "object") continue;
    // An array's member names are its indices. Pushed last member first, so that the first is visited next.
    const names = Object.keys(members);
    for (let i = names.length - 1; i >= 0; i--) {
      const name = names[i] as string;
      stack.push({ name, value: (members as Record<string, unknown>)[name], parent: next });
    }
  }
  return found;
}

/** The JSON pointer of a visited member: its names from the top, escaped. */
function pointerOf(visit: Visit): string {
  const names: string[] = [];
  for (let at: Visit | undefined = visit; at?.name !== undefined; at = at.parent) {
    names.push(`/${pointerToken(at.name)}`);
  }
  return names.reverse().join("");
}

/** A member's name as one reference token of a JSON pointer (RFC 6901): "~" as "~0", "/" as "~1". */
export const pointerToken = (name: string) => name.replaceAll("~", "~0").replaceAll("/", "~1");

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Half of a surrogate pair without the other half, in a member's name or in a string value. */
const loneSurrogateProblem = (name: string | undefined, member: unknown) =>
  (name !== undefined && loneSurrogate.test(name)) || (typeof member === "string" && loneSurrogate.test(member))
    ? "must not contain a lone surrogate (\\ud800 to \\udfff without its pair)"
    : undefined;

/**
 * The 400 for text no field accepts, since the stores could not keep it as given: the NUL character, which PostgreSQL
 * refuses in text, and a lone surrogate (half of a pair, no character), which UTF-8 cannot encode. Every place is
 * named. `where` says what held it (the body, an alias's path, a provider's hook); `look` which of the two may be
 * there at all.
 */
export function unstorableText(
  value: unknown,
  where: "body" | "path" | "hook body",
  look: { nul: boolean; loneSurrogate: boolean } = { nul: true, loneSurrogate: true },
): GatewayError | undefined {
  const withNul = look.nul ? problemsWhere(value, nulProblem) : [];
  if (withNul.length > 0) {
    return invalidRequest(`The ${where} contains the NUL character (\\u0000), which no field accepts`, withNul);
  }
  const withLoneSurrogate = look.loneSurrogate ? problemsWhere(value, loneSurrogateProblem) : [];
  if (withLoneSurrogate.length > 0) {
    return invalidRequest(
      `The ${where} contains a lone surrogate (\\ud800 to \\udfff without its pair), which is no character`,
      withLoneSurrogate,
    );
  }
  return undefined;
}

/** U+0000 in a member's name or in a string value. */
const nulProblem = (name: string | undefined, member: unknown) =>
  name?.includes("\u0000") || (typeof member === "string" && member.includes("\u0000"))
    ? "must not contain the NUL character (\\u0000)"
    : undefined;
