// docs/cli.md has a row for every command the `gateway` program has, as its own help lists them.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../cli.ts";

const page = readFileSync(path.resolve(import.meta.dirname, "../../../../docs/cli.md"), "utf8");

/** The names under "Commands:" in a help text, without `help`. */
async function commandsOf(args: string[]): Promise<string[]> {
  const { stdout } = await runCli([...args, "--help"], { timeoutMs: 60_000 });
  const listing = stdout.split("Commands:\n")[1] ?? "";
  return [...listing.matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1] as string).filter((name) => name !== "help");
}

describe("docs/cli.md", () => {
  it("documents every command", { timeout: 120_000 }, async () => {
    const names = await commandsOf([]);
    const groups = await Promise.all(names.map((name) => commandsOf([name])));
    const commands = names.flatMap((name, i) => {
      const subcommands = groups[i] ?? [];
      return subcommands.length === 0 ? [name] : subcommands.map((sub) => `${name} ${sub}`);
    });
    expect(commands).toContain("keys create");
    const undocumented = commands.filter((command) => !page.includes(`| \`gateway ${command}`));
    expect(undocumented).toEqual([]);
  });
});
