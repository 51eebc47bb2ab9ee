// Helpers shared by CLI commands: opening the configured store, printing for people or as JSON.
import { loadConfig } from "../config.ts";
import { systemClock } from "../core/clock.ts";
import { openStore, type Store } from "../store/database.ts";

export async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await store.migrate();
    return await work(store);
  } finally {
    await store.close();
  }
}

export const clock = systemClock;

export function print(json: boolean, value: unknown, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}
