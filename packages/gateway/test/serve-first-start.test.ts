// `gateway serve`'s first start on an empty store, with standard output a pipe (a log collector, not a terminal):
// the log stays JSON lines and never holds the key; the key is in a file of the data directory only its owner can
// read, and it works. (SQLite: a fresh data directory.)
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { freePort, testStore } from "./harness.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-first-start-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it.skipIf(testStore() !== "sqlite")(
  "writes the first key to a file only its owner can read, and logs where, never the key",
  { timeout: 120_000 },
  async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ["--import", "tsx", "packages/gateway/src/cli/main.ts", "serve"], {
      cwd: root,
      env: { ...process.env, GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "", PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    try {
      while (!stdout.includes('"msg":"gateway listening"')) {
        if (child.exitCode !== null) throw new Error(`serve ended\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const file = path.join(dataDir, "first-api-key");
      const key = fs.readFileSync(file, "utf8").trimEnd();
      expect(key).toMatch(/^gwk_[0-9A-Za-z]{32}$/);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);

      const lines = stdout
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.find((line) => line.file === file)).toMatchObject({
        level: 40,
        account: "default",
        key_id: expect.stringMatching(/^key_/),
      });
      expect(stdout).not.toContain(key);
      expect(stderr).not.toContain(key);

      const response = await fetch(`${url}/v1/platform/list_api_keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
    }
  },
);
