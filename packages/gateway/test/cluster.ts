// Several `gateway serve` processes sharing one fresh PostgreSQL database and one Redis (the multi-node tests), and
// a Redis server of the test's own that it can stop and start again (the outage tests).
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { Accounts } from "../src/core/accounts.ts";
import { ApiKeys, type CreateKeyInput } from "../src/core/api-keys.ts";
import { systemClock } from "../src/core/clock.ts";
import { randomBase62 } from "../src/core/ids.ts";
import { providers } from "../src/providers/registry.ts";
import { openStore } from "../src/store/database.ts";
import { startCli, stopProcess } from "./cli.ts";
import { freePort } from "./harness.ts";

const postgresUrl = process.env.GATEWAY_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A fresh database on the test PostgreSQL server, migrated, with the account "default". */
export async function createDatabase(): Promise<{
  url: string;
  createKey(input?: Partial<CreateKeyInput>): Promise<{ key: string; id: string }>;
  drop(): Promise<void>;
}> {
  const name = `gw_${randomBase62(12).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  const store = openStore({ databaseUrl: url.toString(), dataDir: os.tmpdir(), poolSize: 2 });
  await store.migrate();
  await new Accounts(store.db, systemClock).ensure("default");
  const keys = new ApiKeys(store.db, systemClock, 0, providers);
  return {
    url: url.toString(),
    async createKey(input = {}) {
      const { key, view } = await keys.create({ accountId: "default", name: "test", scopes: ["*"], ...input });
      return { key, id: view.id };
    },
    async drop() {
      await store.close();
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export interface GatewayNode {
  url: string;
  /** What the process wrote, for a failing test's message. */
  output(): string;
  stop(): Promise<void>;
}

/** Environment shared by the nodes of one deployment: the same database, Redis and master key. */
export function deploymentEnv(databaseUrl: string, redisUrl: string): Record<string, string> {
  return {
    GATEWAY_DATABASE_URL: databaseUrl,
    GATEWAY_REDIS_URL: redisUrl,
    GATEWAY_REDIS_KEY_PREFIX: `test-${randomBase62(10)}:`,
    GATEWAY_MASTER_KEY: randomBytes(32).toString("base64"),
    GATEWAY_LOG_LEVEL: "warn",
  };
}

/** `gateway serve` in a child process; resolves once /readyz answers. */
export async function startNode(env: Record<string, string>): Promise<GatewayNode> {
  // A port found free can be taken by another process before the node binds it: try another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startNodeOnce(env);
    } catch (error) {
      if (attempt === 3 || !String(error).includes("EADDRINUSE")) throw error;
    }
  }
}

async function startNodeOnce(env: Record<string, string>): Promise<GatewayNode> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-node-"));
  const cli = startCli(["serve"], {
    env: { PORT: String(port), HOST: "127.0.0.1", GATEWAY_DATA_DIR: dataDir, ...env },
  });
  const url = `http://127.0.0.1:${port}`;
  const node: GatewayNode = {
    url,
    output: cli.output,
    async stop() {
      await cli.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await cli.waitForHttp(`${url}/readyz`, 90_000);
  } catch (error) {
    await node.stop();
    throw error; // it holds the node's output: an EADDRINUSE there makes startNode try another port
  }
  return node;
}

export interface RedisServer {
  url: string;
  /** Kills the server at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A `redis-server` of the test's own on a free port: no persistence, so a restart starts empty. */
/** A redis-server of the test's own on a free port; with `password`, it requires it (`requirepass`). */
export async function startRedisServer(options: { password?: string } = {}): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  if (options.password !== undefined) args.push("--requirepass", options.password);
  const start = async () => {
    child = spawn("redis-server", args, { stdio: "ignore" });
    await waitForRedis(port, options.password);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      if (child) await stopProcess(child, "SIGKILL");
    },
    restart: start,
    async stop() {
      if (child) await stopProcess(child);
    },
  };
}

async function waitForRedis(port: number, password: string | undefined): Promise<void> {
  const { Redis } = await import("ioredis");
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new Redis({
      port,
      host: "127.0.0.1",
      lazyConnect: true,
      retryStrategy: () => null,
      ...(password !== undefined && { password }),
    });
    client.on("error", () => {});
    try {
      await client.connect();
      if ((await client.ping()) === "PONG") return;
    } catch {
      if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      client.disconnect();
    }
  }
}
