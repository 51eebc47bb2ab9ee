// The master key of the secret box: GATEWAY_MASTER_KEY (32 bytes as base64 or hex). Production refuses to start
// without it; development and test generate one into `<dataDir>/master.key` once and warn, so that a restart on the
// same data directory can still open what it sealed.

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export interface MasterKeyConfig {
  env: "development" | "production" | "test";
  dataDir: string;
  masterKey: string | undefined;
}

export function parseMasterKey(text: string): Buffer {
  const value = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, "hex") : Buffer.from(value, "base64");
  if (key.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(value) && !/^[A-Za-z0-9+/_-]{43}=?$/.test(value))) {
    throw new Error("GATEWAY_MASTER_KEY must be 32 bytes as base64 (44 characters) or hex (64 characters)");
  }
  return key;
}

/** Refuses a configuration that can never give a key (a malformed one, none in production), creating nothing. */
export function refuseUnusableMasterKey(config: MasterKeyConfig): void {
  if (config.masterKey) parseMasterKey(config.masterKey);
  else if (config.env === "production") throw keyRequired();
}

const keyRequired = () =>
  new Error("GATEWAY_MASTER_KEY is required in production (32 random bytes as base64: `openssl rand -base64 32`)");

/** Answers the key and, when one was generated or read from the data directory, a warning to log. */
export function resolveMasterKey(config: MasterKeyConfig): { key: Buffer; warning?: string } {
  if (config.masterKey) return { key: parseMasterKey(config.masterKey) };
  if (config.env === "production") throw keyRequired();
  const file = path.join(config.dataDir, "master.key");
  if (fs.existsSync(file)) {
    return {
      key: parseMasterKey(fs.readFileSync(file, "utf8")),
      warning: `Using the development master key in ${file}; set GATEWAY_MASTER_KEY in production`,
    };
  }
  const key = randomBytes(32);
  fs.mkdirSync(config.dataDir, { recursive: true });
  // wx: two processes starting at once must not overwrite each other's key.
  try {
    fs.writeFileSync(file, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return resolveMasterKey(config);
    throw error;
  }
  return {
    key,
    warning: `Generated a development master key into ${file}; set GATEWAY_MASTER_KEY in production`,
  };
}
