// `gateway serve` as a separate process when it cannot serve: a port taken by another process, or one that is not a
// port. It says why on standard error and exits with 1, rather than hang or end silently. (SQLite: the store of a
// fresh data directory; PostgreSQL changes nothing here.)
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./cli.ts";
import { freePort, testStore } from "./harness.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-cli-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const serve = (port: string) =>
  runCli(["serve"], { env: { GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "", PORT: port } });

const lastLine = (text: string) => text.trimEnd().split("\n").at(-1);

describe.skipIf(testStore() !== "sqlite")("gateway serve that cannot serve", { timeout: 60_000 }, () => {
  it("exits with 1 and names the taken port", async () => {
    const port = await freePort();
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(port, "127.0.0.1", resolve));
    try {
      const { code, stderr } = await serve(String(port));
      expect(code).toBe(1);
      expect(lastLine(stderr)).toBe(`gateway: listen EADDRINUSE: address already in use 127.0.0.1:${port}`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    // Closed cleanly: the store's write-ahead log was checkpointed and removed.
    expect(fs.existsSync(path.join(dataDir, "gateway.db-wal"))).toBe(false);
  });

  it("refuses a port number out of range before starting anything", async () => {
    const { code, stderr } = await serve("70000");
    expect(code).toBe(1);
    expect(stderr).toBe('gateway: PORT must be a port number (0 to 65535), got "70000"\n');
  });
});
