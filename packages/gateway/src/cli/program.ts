// The `gateway` program: one file per command, assembled here; main.ts runs it.
import { Command } from "commander";
import { gatewayVersion } from "../version.ts";
import { backupCommand } from "./backup.ts";
import { connectionsCommand } from "./connections.ts";
import { keysCommand } from "./keys.ts";
import { masterKeyCommand } from "./master-key.ts";
import { migrateCommand } from "./migrate.ts";
import { openapiCommand } from "./openapi.ts";
import { sandboxCommand } from "./sandbox.ts";
import { serveCommand } from "./serve.ts";
import { usersCommand } from "./users.ts";

/** Every command of `gateway`, each saying its usage errors as the program's own. */
export function gatewayProgram(): Command {
  const program = new Command()
    .name("gateway")
    .description("Provider Gateway: one HTTP JSON interface to many providers")
    .version(gatewayVersion, "-V, --version", "print the gateway's version")
    .showHelpAfterError();
  for (const command of [
    serveCommand(),
    migrateCommand(),
    backupCommand(),
    sandboxCommand(),
    keysCommand(),
    connectionsCommand(),
    usersCommand(),
    masterKeyCommand(),
    openapiCommand(),
  ]) {
    program.addCommand(command);
  }
  // Usage errors (an unknown option, a missing argument) of every command say which program wrote them, as every
  // other error does. Commands added whole do not inherit the setting: it is given to each.
  withUsage(program);
  return program;
}

const usage = {
  outputError: (text: string, write: (text: string) => void) => write(text.replace(/^error: /, "gateway: ")),
};

function withUsage(command: Command): void {
  command.configureOutput(usage);
  for (const sub of command.commands) withUsage(sub);
}
