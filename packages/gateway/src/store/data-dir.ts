// The data directory (GATEWAY_DATA_DIR): the SQLite store, the development master key, the first API key's file.
import fs from "node:fs";
import path from "node:path";

/** The error for a data directory that cannot be used: names the variable and the directory, then the reason. */
export const dataDirError = (dir: string, reason: string) =>
  new Error(`GATEWAY_DATA_DIR ${dir} cannot be used: ${reason}`);

/**
 * Creates the data directory and its missing parents, one at a time rather than with mkdirSync's recursive mode,
 * which on Node 20 loops for ever on a path under /proc. A failure names GATEWAY_DATA_DIR.
 */
export function makeDataDir(dir: string): void {
  const missing: string[] = [];
  try {
    for (let at = path.resolve(dir); !fs.existsSync(at); at = path.dirname(at)) {
      missing.unshift(at);
      if (path.dirname(at) === at) break;
    }
    for (const directory of missing) fs.mkdirSync(directory);
    if (!fs.statSync(dir).isDirectory()) throw new Error("it is not a directory");
  } catch (error) {
    throw dataDirError(dir, (error as Error).message);
  }
}
