// `gateway serve` whose standard output is a pipe nobody reads (a stuck log shipper): requests keep being answered;
// log lines past the log buffer are dropped and counted in /metrics; once the pipe is read again the lines kept arrive
// whole and in order, then one warning says how many were dropped. (SQLite: the store plays no part here.)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Accounts } from "../src/core/accounts.ts";
import { ApiKeys } from "../src/core/api-keys.ts";
import { systemClock } from "../src/core/clock.ts";
import { providers } from "../src/providers/registry.ts";
import { openStore } from "../src/store/database.ts";
import { startCli } from "./cli.ts";
import { freePort, testStore } from "./harness.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-unread-stdout-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** A store with the account "default" and a key, so that serve prints no first-start key (it starts as a restart). */
async function prepareStore(): Promise<string> {
  const store = openStore({ dataDir });
  await store.migrate();
  await new Accounts(store.db, systemClock).ensure("default");
  const { key } = await new ApiKeys(store.db, systemClock, 0, providers).create({
    accountId: "default",
    name: "test",
    scopes: ["*"],
    rateLimit: { perMinute: 1_000_000, burst: 1_000_000 },
  });
  await store.close();
  return key;
}

const droppedMetric = async (url: string) => {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^gateway_log_lines_dropped_total (\d+)$/m.exec(text)?.[1]);
};

describe.skipIf(testStore() !== "sqlite")(
  "gateway serve with a standard output nobody reads",
  { timeout: 120_000 },
  () => {
    it("answers every request, drops and counts the lines past its buffer, and says so when read again", async () => {
      const key = await prepareStore();
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const serve = startCli(["serve"], {
        env: {
          GATEWAY_DATA_DIR: dataDir,
          GATEWAY_DATABASE_URL: "",
          PORT: String(port),
          GATEWAY_NO_WEBHOOK_WORKER: "1",
          GATEWAY_LOG_BUFFER_BYTES: "32768",
        },
      });
      // Not read: the pipe and this side's stream buffer fill, then the gateway's writes find the pipe full. (Paused
      // before anything arrives: what the helper collects starts when it is read again.)
      serve.child.stdout?.pause();
      try {
        await serve.waitForHttp(`${url}/healthz`);
        let answered = 1; // the /healthz that answered

        // About 3,000 lines of some 250 bytes: ten times what the pipe, this side's buffer and the 32 KiB log buffer
        // hold. Before, serve stopped in write(2) once the pipe was full, and every later request waited with it.
        const requests = 3_000;
        const statuses: number[] = [];
        let sent = 0;
        const send = async () => {
          while (sent < requests) {
            sent++;
            const response = await fetch(`${url}/v1/platform/list_api_keys`, {
              method: "POST",
              headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
              body: "{}",
              // A gateway stuck in write(2) answers nothing: fail with that rather than at the test's timeout.
              signal: AbortSignal.timeout(10_000),
            });
            statuses.push(response.status);
            await response.arrayBuffer();
          }
        };
        await Promise.all(Array.from({ length: 8 }, send));
        answered += requests;
        expect(statuses.filter((status) => status !== 200)).toEqual([]);

        const droppedWhileStuck = await droppedMetric(url);
        answered++;
        expect(droppedWhileStuck).toBeGreaterThan(1_000);

        // Read again: the kept lines, then the warning.
        serve.child.stdout?.resume();
        const warning = "standard output was not read: log lines were dropped";
        await serve.waitForLine(warning);
        await new Promise((resolve) => setTimeout(resolve, 100));

        const lines = serve
          .stdout()
          .trimEnd()
          .split("\n")
          .map((line) => JSON.parse(line) as { msg?: string; request_id?: string; dropped_lines?: number });
        const noteAt = lines.findIndex((line) => line.msg === warning);
        const note = lines[noteAt];
        const requestLinesBefore = lines.slice(0, noteAt).filter((line) => line.request_id !== undefined).length;
        // Every answered request's line either arrived, whole, or was counted; the count is the one /metrics gives.
        expect(requestLinesBefore + (note?.dropped_lines ?? 0)).toBe(answered);
        expect(note?.dropped_lines).toBe(await droppedMetric(url));
      } finally {
        await serve.stop();
      }
    });
  },
);
