// The `gateway` command: its program (program.ts) run on the process's arguments.
// First, before anything else allocates: see the file.
import "./tick-shapes.ts";
import { GatewayError } from "../core/errors.ts";
import { gatewayProgram } from "./program.ts";

const program = gatewayProgram();

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
