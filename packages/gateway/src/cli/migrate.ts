// gateway migrate: applies pending migrations to the configured store.
import { Command } from "commander";
import { print, withStore } from "./shared.ts";

export function migrateCommand(): Command {
  return new Command("migrate")
    .description("Apply pending database migrations (serve also does this at start)")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      await withStore(
        async (store) =>
          print(options.json === true, { store: store.kind, migrated: true }, `Migrated the ${store.kind} store.`),
        true,
      );
    });
}
