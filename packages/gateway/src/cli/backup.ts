// gateway backup <file>: an online copy of the embedded SQLite store, taken while a gateway serves it
// (store/sqlite-backup.ts). PostgreSQL has its own tools, and the master key is kept apart from any copy of the store.
import path from "node:path";
import { Command } from "commander";
import { loadConfig } from "../config.ts";
import { backupSqliteStore } from "../store/sqlite-backup.ts";
import { print } from "./shared.ts";

export function backupCommand(): Command {
  return new Command("backup")
    .description("Copy the SQLite store to <file> while the gateway serves (PostgreSQL: use pg_dump)")
    .argument("<file>", "the backup to write")
    .option("--overwrite", "replace <file> when it exists")
    .option("--json", "print JSON")
    .action(async (target: string, options: { overwrite?: boolean; json?: boolean }) => {
      const config = loadConfig();
      if (config.databaseUrl) {
        throw new Error(
          "The store is PostgreSQL (GATEWAY_DATABASE_URL), which this command does not copy: back it up with " +
            "pg_dump or pg_basebackup (docs/backups.md)",
        );
      }
      const backup = await backupSqliteStore(config.dataDir, target, options.overwrite === true);
      const key = config.masterKey
        ? "GATEWAY_MASTER_KEY"
        : `the master key (${path.join(config.dataDir, "master.key")})`;
      print(
        options.json === true,
        { store: "sqlite", source: backup.source, file: backup.file, bytes: backup.bytes, ms: backup.ms },
        `Backed up ${backup.source} to ${backup.file} (${backup.bytes} bytes, ${backup.ms} ms).\n` +
          `The backup holds no master key: keep ${key} apart from it; a restore needs that key.`,
      );
    });
}
