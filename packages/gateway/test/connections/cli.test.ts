// `gateway connections create|list` as a separate process against a running gateway: the same connect flow, as the
// sandbox's demo user, with a key (the API) and, on the embedded store, without one (the store directly).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli.ts";
import { freePort, testStore } from "../harness.ts";
import { platform, type ShoppingSetup, shopping, startShopping } from "./setup.ts";

// Each command starts a Node process that loads the whole CLI through tsx: slow on a busy machine.
const slow = { timeout: 180_000 };
let s: ShoppingSetup;
beforeAll(async () => {
  s = await startShopping();
});
afterAll(async () => s?.close());

/** The command's standard output; rejects with its code and output when it fails. */
async function gateway(args: string[], env: Record<string, string> = {}) {
  const result = await runCli(args, {
    env: { GATEWAY_API_KEY: "", GATEWAY_PUBLIC_URL: "", ...env },
    timeoutMs: 150_000,
  });
  if (result.code !== 0) throw Object.assign(new Error(`gateway ${args.join(" ")} failed (${result.code})`), result);
  return result.stdout;
}

// The command is the same whatever store the gateway it calls uses, and without a key it opens a SQLite store of its
// own: run once, on the embedded store (the connect flow on PostgreSQL has suites of its own).
describe.skipIf(testStore() !== "sqlite")("gateway connections", slow, () => {
  it("create --key runs the flow through the gateway and prints the connection; list shows it", async () => {
    const out = await gateway([
      "connections",
      "create",
      "--provider",
      "shopping",
      "--external-ref",
      "cli_user",
      "--url",
      s.t.url,
      "--key",
      s.t.key,
      "--json",
    ]);
    const printed = JSON.parse(out);
    expect(printed).toEqual({
      id: expect.stringMatching(/^conn_[0-9A-Za-z]{22}$/),
      provider_id: "shopping",
      external_ref: "cli_user",
    });
    expect((await shopping(s.t, "get_cart", printed.id)).status).toBe(200);
    const listed = JSON.parse(
      await gateway(["connections", "list", "--url", s.t.url, "--json"], { GATEWAY_API_KEY: s.t.key }),
    );
    expect(listed.map((c: any) => c.id)).toContain(printed.id);
  });

  it("create without a key opens the store and runs the same flow", async () => {
    const env = { GATEWAY_DATA_DIR: s.t.config.dataDir, GATEWAY_PUBLIC_URL: s.t.config.publicUrl };
    const printed = JSON.parse(
      await gateway(["connections", "create", "--provider", "shopping", "--external-ref", "cli_store", "--json"], env),
    );
    expect(printed).toMatchObject({ provider_id: "shopping", external_ref: "cli_store" });
    const { body } = await platform(s.t, "get_connection", { connection_id: printed.id });
    expect(body.data.connection.status).toBe("active");
    const text = await gateway(["connections", "list", "--external-ref", "cli_store"], env);
    expect(text).toContain(`${printed.id}  shopping  active  cli_store`);
  });

  it("create without a key opens the link at the gateway's public URL, whatever name --url gives it", async () => {
    // The gateway's public URL is localhost; --url names it 127.0.0.1. The provider sends the browser back to the
    // public URL, where the flow's cookie must be: a link opened at 127.0.0.1 would end without a connection.
    const other = s.t.url;
    expect(new URL(s.t.config.publicUrl).hostname).toBe("localhost");
    expect(new URL(other).hostname).toBe("127.0.0.1");
    const args = ["connections", "create", "--provider", "shopping", "--external-ref", "cli_alias", "--json"];
    const printed = JSON.parse(await gateway([...args, "--url", other], { GATEWAY_DATA_DIR: s.t.config.dataDir }));
    expect(printed).toMatchObject({ provider_id: "shopping", external_ref: "cli_alias" });
  });

  it("fails clearly for a provider without connections", async () => {
    const failed = gateway([
      "connections",
      "create",
      "--provider",
      "catalog",
      "--external-ref",
      "x",
      "--url",
      s.t.url,
      "--key",
      s.t.key,
    ]);
    await expect(failed).rejects.toMatchObject({
      stderr: expect.stringContaining("create_connect_session: invalid_request"),
    });
  });

  it("checks --external-ref as the API does when it writes to the store itself", async () => {
    const env = { GATEWAY_DATA_DIR: s.t.config.dataDir };
    const cases: [string, string][] = [
      ["", "--external-ref must NOT have fewer than 1 characters"],
      ["a".repeat(256), "--external-ref must NOT have more than 255 characters"],
    ];
    for (const [ref, problem] of cases) {
      const failed = gateway(["connections", "create", "--provider", "shopping", "--external-ref", ref], env);
      await expect(failed).rejects.toMatchObject({ code: 1, stderr: `gateway: ${problem}\n` });
    }
    // A provider without connections: the answer lists those with.
    const catalog = gateway(["connections", "create", "--provider", "catalog", "--external-ref", "x"], env);
    await expect(catalog).rejects.toMatchObject({
      code: 1,
      stderr:
        "gateway: catalog is not a provider with connections; these are: shopping, dining, delivery, rides, payments\n",
    });
    // So is listing one (or a misspelt id), which through the API is a 400 too, not "No connections."
    for (const provider of ["catalog", "shoping"]) {
      const listed = gateway(["connections", "list", "--provider", provider], env);
      await expect(listed).rejects.toMatchObject({
        code: 1,
        stderr: `gateway: ${provider} is not a provider with connections; these are: shopping, dining, delivery, rides, payments\n`,
      });
    }
  });

  it("without a key, refuses an --account that does not exist", async () => {
    const env = { GATEWAY_DATA_DIR: s.t.config.dataDir };
    const args = ["connections", "create", "--provider", "shopping", "--external-ref", "typo", "--account", "nosuch"];
    await expect(gateway(args, env)).rejects.toMatchObject({
      code: 1,
      stderr:
        "gateway: There is no account nosuch: create it with a key first (gateway keys create --account nosuch)\n",
    });
    expect(await s.t.gateway.core.accounts.get("nosuch")).toBeUndefined();
  });

  it("without a key, says where it wrote the session when the gateway does not know the link", async () => {
    // Another data directory than the running gateway's: the link the command made is unknown there (404).
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), "gateway-cli-store-"));
    try {
      const failed = gateway(
        ["connections", "create", "--provider", "shopping", "--external-ref", "lost", "--url", s.t.url],
        { GATEWAY_DATA_DIR: elsewhere, GATEWAY_DATABASE_URL: "" },
      );
      await expect(failed).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(
          `the connect session was written to ${path.join(elsewhere, "gateway.db")}, so the gateway at http://`,
        ),
      });
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("says which gateway it could not reach, and how to name another", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const failed = gateway(
      ["connections", "create", "--provider", "shopping", "--external-ref", "x", "--url", closed],
      {
        GATEWAY_API_KEY: s.t.key,
      },
    );
    await expect(failed).rejects.toMatchObject({
      code: 1,
      stderr: `gateway: Could not reach ${closed} (ECONNREFUSED); is the gateway running there? Give its URL with --url or GATEWAY_PUBLIC_URL\n`,
    });
  });
});
