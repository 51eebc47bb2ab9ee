// `gateway serve` as a separate process when it cannot serve: a port taken by another process, one that is not a
// port, or a SQLite store another gateway serves. It says why on standard error and exits with 1, rather than hang,
// end silently, or (the store) take over the other's webhook deliveries. (SQLite: the store of a
// fresh data directory; PostgreSQL changes nothing here.)
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gatewayVersion } from "../src/version.ts";
import { runCli, startCli } from "./cli.ts";
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

  it("refuses a SQLite store another gateway serves, and takes it once that one has stopped", async () => {
    const first = startCli(["serve"], {
      env: { GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "", PORT: String(await freePort()) },
    });
    try {
      const listening = JSON.parse(await first.waitForLine('"msg":"gateway listening"'));
      expect(listening).toMatchObject({ version: gatewayVersion, store: "sqlite" });
      const second = await serve(String(await freePort()));
      expect(second.code).toBe(1);
      expect(lastLine(second.stderr)).toBe(
        `gateway: Another gateway is serving the SQLite store in ${dataDir}: stop it first. SQLite serves one node; ` +
          "run several nodes on PostgreSQL (GATEWAY_DATABASE_URL).",
      );
      // The store's CLI commands run beside it.
      const key = await runCli(["keys", "create", "--scopes", "opendata", "--json"], {
        env: { GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "" },
      });
      expect(key.code).toBe(0);
    } finally {
      await first.stop();
    }
    const port = await freePort();
    const third = startCli(["serve"], {
      env: { GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "", PORT: String(port) },
    });
    try {
      await third.waitForHttp(`http://127.0.0.1:${port}/readyz`);
    } finally {
      await third.stop();
    }
  });

  it("refuses a port number out of range before starting anything", async () => {
    const { code, stderr } = await serve("70000");
    expect(code).toBe(1);
    expect(stderr).toBe('gateway: PORT must be a port number (0 to 65535), got "70000"\n');
  });
});
