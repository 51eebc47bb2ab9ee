// The published package as a user gets it: `npm pack` of @provider-gateway/gateway, installed on its own into an
// empty project, runs `gateway --version` and `gateway serve` (SQLite, the sandboxes in process) with the console and
// the docs. The install is offline, from npm's cache that the workspace's `npm ci` filled: the project is given the
// lockfile that the tarball's npm-shrinkwrap.json makes, since `npm ci` caches the registry's abbreviated metadata and
// an install without a lockfile asks for the full one.
import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { gatewayVersion } from "../src/version.ts";
import { runCli, startCli } from "./cli.ts";
import { freePort, testStore } from "./harness.ts";

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, "../../..");
const temp = fs.mkdtempSync(path.join(os.tmpdir(), "npm-package-"));
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

interface LockEntry {
  version: string;
  [field: string]: unknown;
}

it.skipIf(testStore() !== "sqlite")(
  "installs from its tarball alone and serves the API, the console and the docs",
  { timeout: 120_000 },
  async (context) => {
    // npm test's pretest has built the bundle and the console: packing must not build them again under the other tests.
    for (const built of ["packages/gateway/dist/gateway.mjs", "packages/console/dist/index.html"])
      expect(fs.existsSync(path.join(repoRoot, built)), `${built}: run npm run build first`).toBe(true);
    const { stdout: packed } = await run(
      "npm",
      ["pack", "-w", "@provider-gateway/gateway", "--pack-destination", temp, "--json"],
      { cwd: repoRoot, env: { ...process.env, GATEWAY_PACK_AS_BUILT: "1" } },
    );
    const [pack] = JSON.parse(packed) as [{ filename: string; files: { path: string }[] }];
    const tarball = path.join(temp, pack.filename);
    expect(pack.files.map((file) => file.path).sort()).toEqual([
      "LICENSE",
      "README.md",
      "bin/gateway.js",
      ...fs
        .readdirSync(path.join(repoRoot, "packages/console/dist/assets"))
        .map((name) => `dist/console/assets/${name}`)
        .sort(),
      "dist/console/index.html",
      "dist/gateway.mjs",
      "npm-shrinkwrap.json",
      "package.json",
    ]);
    expect(fs.existsSync(path.join(repoRoot, "packages/gateway/npm-shrinkwrap.json"))).toBe(false);

    const project = path.join(temp, "project");
    fs.mkdirSync(project);
    const { stdout: shrinkwrapText } = await run("tar", ["-xzOf", tarball, "package/npm-shrinkwrap.json"]);
    const { "": gateway, ...dependencies } = (
      JSON.parse(shrinkwrapText) as { packages: Record<string, LockEntry & { dependencies: Record<string, string> }> }
    ).packages;
    const spec = `file:${tarball}`;
    const manifest = { name: "project", private: true, dependencies: { "@provider-gateway/gateway": spec } };
    const lock = {
      name: "project",
      lockfileVersion: 3,
      requires: true,
      packages: {
        "": manifest,
        "node_modules/@provider-gateway/gateway": { ...gateway, resolved: spec, name: undefined },
        ...dependencies,
      },
    };
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify(manifest));
    fs.writeFileSync(path.join(project, "package-lock.json"), JSON.stringify(lock));
    // better-sqlite3's install script would compile SQLite again (a minute on two cores, the registry's prebuilt binary
    // being out of reach offline): the project takes the binary the workspace's install built for the same version.
    const install = await run(
      "npm",
      ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", "--no-save", tarball],
      { cwd: project },
    ).catch((error: { stderr: string }) => error);
    if ("stderr" in install && install.stderr.includes("ENOTCACHED"))
      context.skip(`npm's cache lacks a dependency (run the workspace's npm ci first): ${install.stderr}`);
    expect(install).not.toBeInstanceOf(Error);
    const installed = path.join(project, "node_modules");
    expect(fs.existsSync(path.join(installed, "@provider-gateway/sandbox"))).toBe(false);
    expect(fs.existsSync(path.join(installed, "tsx"))).toBe(false);
    const sqlite = path.join(installed, "better-sqlite3");
    expect((JSON.parse(fs.readFileSync(path.join(sqlite, "package.json"), "utf8")) as LockEntry).version).toBe(
      (dependencies["node_modules/better-sqlite3"] as LockEntry).version,
    );
    const workspaceSqlite = path.dirname(createRequire(import.meta.url).resolve("better-sqlite3/package.json"));
    fs.cpSync(
      path.join(workspaceSqlite, "build/Release/better_sqlite3.node"),
      path.join(sqlite, "build/Release/better_sqlite3.node"),
    );

    const bin = path.join(installed, ".bin/gateway");
    const version = await runCli(["--version"], { bin, cwd: project });
    expect(version).toEqual({ code: 0, stdout: `${gatewayVersion}\n`, stderr: "" });

    const dataDir = path.join(temp, "data");
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const serve = startCli(["serve"], {
      bin,
      cwd: project,
      env: { GATEWAY_DATA_DIR: dataDir, GATEWAY_DATABASE_URL: "", PORT: String(port) },
    });
    try {
      await serve.waitForHttp(`${url}/healthz`);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const key = fs.readFileSync(path.join(dataDir, "first-api-key"), "utf8").trimEnd();
      const lookup = await fetch(`${url}/v1/opendata/lookup_postal_code`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ postal_code: "1000001" }),
      });
      expect(lookup.status).toBe(200);
      expect(await lookup.json()).toEqual({
        data: {
          postal_code: "1000001",
          addresses: [expect.objectContaining({ prefecture: "東京都", city: "千代田区", town: "千代田" })],
        },
        meta: { source: "opendata", fetched_at: expect.any(String) },
        pagination: null,
      });

      const page = await fetch(`${url}/console`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toBe(fs.readFileSync(path.join(repoRoot, "packages/console/dist/index.html"), "utf8"));
      const script = html.match(/src="(\/console\/assets\/[^"]+\.js)"/)?.[1];
      expect((await fetch(`${url}${script}`)).status).toBe(200);
      const docs = await fetch(`${url}/docs`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain("swagger-ui");
    } finally {
      await serve.stop();
    }
  },
);
