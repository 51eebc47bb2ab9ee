// docs/cli.md has a row for every command the `gateway` program has.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { gatewayProgram } from "../../src/cli/program.ts";

const page = readFileSync(path.resolve(import.meta.dirname, "../../../../docs/cli.md"), "utf8");

/** `keys create`, `serve`, …: each command that runs, named by its path under `gateway`. */
const commandsOf = (command: Command, prefix = ""): string[] =>
  command.commands.flatMap((sub) => {
    const name = `${prefix}${sub.name()}`;
    return sub.commands.length === 0 ? [name] : commandsOf(sub, `${name} `);
  });

describe("docs/cli.md", () => {
  it("documents every command", () => {
    const commands = commandsOf(gatewayProgram());
    expect(commands).toContain("keys create");
    expect(commands).toContain("openapi");
    const undocumented = commands.filter((command) => !page.includes(`| \`gateway ${command}`));
    expect(undocumented).toEqual([]);
  });
});
