// `gateway users create`: a console user straight in the store, with a password from standard input or generated
// and shown once; the user then signs in at /console. (SQLite only: the CLI opens the store the environment names.)
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestGateway, testStore } from "../harness.ts";
import { ConsoleClient, startConsoleGateway } from "./console-client.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
let t: TestGateway;

function gatewayCli(args: string[], input = "") {
  const result = spawnSync(process.execPath, ["--import", "tsx", "packages/gateway/src/cli/main.ts", ...args], {
    cwd: root,
    input,
    encoding: "utf8",
    env: { ...process.env, GATEWAY_DATA_DIR: t.config.dataDir, GATEWAY_DATABASE_URL: "" },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.skipIf(testStore() !== "sqlite")("gateway users create", () => {
  beforeAll(async () => {
    t = await startConsoleGateway();
  });
  afterAll(() => t.close());

  it("reads the password from standard input, and the user signs in", async () => {
    const created = gatewayCli(
      ["users", "create", "--email", "Ops@Example.com", "--password-stdin", "--json"],
      "a long passphrase\n",
    );
    expect(created.status).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({
      id: expect.stringMatching(/^usr_[0-9A-Za-z]{16}$/),
      email: "ops@example.com",
      account_id: "default",
    });
    expect((await new ConsoleClient(t.url).signIn("ops@example.com", "a long passphrase")).status).toBe(200);
  });

  it("generates a password when none is given, shown once, for the named account", async () => {
    const created = gatewayCli(["users", "create", "--email", "new@example.com", "--account", "acme", "--json"]);
    expect(created.status).toBe(0);
    const { password, account_id } = JSON.parse(created.stdout);
    expect(account_id).toBe("acme");
    expect(password).toMatch(/^[0-9A-Za-z_-]{20}$/);
    const client = new ConsoleClient(t.url);
    const response = await client.signIn("new@example.com", password);
    expect(((await response.json()) as any).data.account_id).toBe("acme");
  });

  it("refuses a second user with the same email", () => {
    const again = gatewayCli(["users", "create", "--email", "ops@example.com", "--password-stdin"], "another long one");
    expect(again.status).toBe(1);
    expect(again.stderr).toBe("gateway: A console user with the email ops@example.com exists already\n");
  });
});
