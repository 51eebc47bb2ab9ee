import { expect, it } from "vitest";
import { gatewayVersion } from "../version.ts";
import { gatewayProgram } from "./program.ts";

it("prints its version with --version and -V, and nothing else", async () => {
  for (const flag of ["--version", "-V"]) {
    let printed = "";
    const program = gatewayProgram()
      .exitOverride()
      .configureOutput({ writeOut: (text) => (printed += text) });
    await expect(program.parseAsync(["node", "gateway", flag])).rejects.toMatchObject({ code: "commander.version" });
    expect(printed).toBe(`${gatewayVersion}\n`);
  }
  expect(gatewayVersion).toMatch(/^\d+\.\d+\.\d+$/);
});
