// The `gateway` command: one file per command, assembled here.
import { Command } from "commander";
import { connectionsCommand } from "./connections.ts";
import { keysCommand } from "./keys.ts";
import { migrateCommand } from "./migrate.ts";
import { openapiCommand } from "./openapi.ts";
import { sandboxCommand } from "./sandbox.ts";
import { serveCommand } from "./serve.ts";
import { usersCommand } from "./users.ts";

const program = new Command()
  .name("gateway")
  .description("Provider Gateway: one HTTP JSON interface to many providers")
  .showHelpAfterError();

program.addCommand(serveCommand());
program.addCommand(migrateCommand());
program.addCommand(sandboxCommand());
program.addCommand(keysCommand());
program.addCommand(connectionsCommand());
program.addCommand(usersCommand());
program.addCommand(openapiCommand());

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`gateway: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
