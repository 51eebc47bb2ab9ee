// The `gateway` command: one file per command, assembled here.
// First, before anything else allocates: see the file.
import "./tick-shapes.ts";
import { Command } from "commander";
import { GatewayError } from "../core/errors.ts";
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

// Usage errors (an unknown option, a missing argument) of every command say which program wrote them, as every other
// error does. Commands added whole do not inherit the setting: it is given to each.
const usage = {
  outputError: (text: string, write: (text: string) => void) => write(text.replace(/^error: /, "gateway: ")),
};
const withUsage = (command: Command): void => {
  command.configureOutput(usage);
  for (const sub of command.commands) withUsage(sub);
};
withUsage(program);

// A reader that stops early (`gateway openapi | head`) ends a printing command as it ends any Unix tool: quietly, not
// with a stack trace. Not the commands that keep running: `serve`, whose log lines have a writer of their own that
// outlives such a reader, and `sandbox`, which prints its URLs once and then serves.
program.hook("preAction", (_program, command) => {
  if (command.name() === "serve" || command.name() === "sandbox") return;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(0);
  });
});

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`gateway: ${(error as Error).message}\n`);
  // A refused input says what was wrong with each part, as the API's 400 details do.
  const details = error instanceof GatewayError && Array.isArray(error.details) ? error.details : [];
  for (const detail of details as { message?: unknown }[]) process.stderr.write(`  ${String(detail.message)}\n`);
  process.exitCode = 1;
}
