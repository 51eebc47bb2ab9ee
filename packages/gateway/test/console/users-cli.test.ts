// `gateway users create|list|set-password|delete`: console users straight in the store, with a password from standard
// input or generated and shown once; the user then signs in at /console, and a new password or a deletion ends the
// user's sessions. (SQLite only: the CLI opens the store the environment names.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Users } from "../../src/core/users/users.ts";
import { runCli } from "../cli.ts";
import { type TestGateway, testStore } from "../harness.ts";
import { ConsoleClient, startConsoleGateway, storedUserRow } from "./console-client.ts";

let t: TestGateway;

const gatewayCli = (args: string[], input: string | Uint8Array = "") =>
  runCli(args, { input, env: { GATEWAY_DATA_DIR: t.config.dataDir, GATEWAY_DATABASE_URL: "" } });

describe.skipIf(testStore() !== "sqlite")("gateway users create", () => {
  beforeAll(async () => {
    t = await startConsoleGateway();
  });
  afterAll(() => t.close());

  it("reads the password from standard input, and the user signs in", async () => {
    const created = await gatewayCli(
      ["users", "create", "--email", "Ops@Example.com", "--password-stdin", "--json"],
      "a long passphrase\n",
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({
      id: expect.stringMatching(/^usr_[0-9A-Za-z]{16}$/),
      email: "ops@example.com",
      account_id: "default",
    });
    expect((await new ConsoleClient(t.url).signIn("ops@example.com", "a long passphrase")).status).toBe(200);
  });

  it("reads standard input as UTF-8: a leading byte order mark is no part of the password, other bytes are refused", async () => {
    // What Windows tools write: a byte order mark, the text, CRLF.
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("caf\u00e9 passphrase\r\n")]);
    const created = await gatewayCli(["users", "create", "--email", "bom@example.com", "--password-stdin"], bom);
    expect(created.code).toBe(0);
    expect((await new ConsoleClient(t.url).signIn("bom@example.com", "caf\u00e9 passphrase")).status).toBe(200);
    // Latin-1 é (0xE9) is no UTF-8: decoded, it would become U+FFFD, a password nobody can type.
    const latin1 = Buffer.concat([Buffer.from("caf"), Buffer.from([0xe9]), Buffer.from(" passphrase\n")]);
    const refused = await gatewayCli(["users", "create", "--email", "latin1@example.com", "--password-stdin"], latin1);
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([
      1,
      "",
      "gateway: The password on standard input is not valid UTF-8; send it encoded as UTF-8\n",
    ]);
    const reset = await gatewayCli(["users", "set-password", "--email", "bom@example.com", "--password-stdin"], latin1);
    expect(reset.code).toBe(1);
    const users = new Users(t.gateway.core.store.db, t.gateway.core.clock);
    await users.remove("bom@example.com");
    expect((await users.list()).map((user) => user.email)).not.toContain("latin1@example.com");
  });

  it("generates a password when none is given, shown once, for the named account", async () => {
    const created = await gatewayCli(["users", "create", "--email", "new@example.com", "--account", "acme", "--json"]);
    expect(created.code).toBe(0);
    const { password, account_id } = JSON.parse(created.stdout);
    expect(account_id).toBe("acme");
    expect(password).toMatch(/^[0-9A-Za-z_-]{20}$/);
    const client = new ConsoleClient(t.url);
    const response = await client.signIn("new@example.com", password);
    expect(((await response.json()) as any).data.account_id).toBe("acme");
  });

  it("refuses a second user with the same email", async () => {
    const again = await gatewayCli(
      ["users", "create", "--email", "ops@example.com", "--password-stdin"],
      "another long one",
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toBe("gateway: A console user with the email ops@example.com exists already\n");
  });

  it("lists users, of every account or of one", async () => {
    const all = await gatewayCli(["users", "list", "--json"]);
    expect(all.code).toBe(0);
    const listed = JSON.parse(all.stdout) as {
      email: string;
      account_id: string;
      created_at: string;
      last_sign_in_at: string | null;
    }[];
    expect(listed.map((u) => [u.email, u.account_id])).toEqual([
      ["ops@example.com", "default"],
      ["new@example.com", "acme"],
    ]);
    const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    expect(listed[0]?.last_sign_in_at).toMatch(isoTime);
    expect(listed[0]?.created_at).toMatch(isoTime);
    expect(JSON.stringify(listed)).not.toContain("password");
    const acme = await gatewayCli(["users", "list", "--account", "acme", "--json"]);
    expect((JSON.parse(acme.stdout) as { email: string }[]).map((u) => u.email)).toEqual(["new@example.com"]);
    // A mistyped account is said to be one, not listed as an account without users.
    const nobody = await gatewayCli(["users", "list", "--account", "nobody"]);
    expect([nobody.code, nobody.stdout, nobody.stderr]).toEqual([
      1,
      "",
      "gateway: There is no account nobody: create it with a key first (gateway keys create --account nobody)\n",
    ]);
  });

  it("sets a new password: the old one and the user's open sessions stop working", async () => {
    const session = new ConsoleClient(t.url);
    expect((await session.signIn("ops@example.com", "a long passphrase")).status).toBe(200);
    expect((await session.request("GET", "/console/api/session")).status).toBe(200);

    const changed = await gatewayCli(
      ["users", "set-password", "--email", "OPS@example.com", "--password-stdin", "--json"],
      "a brand new passphrase\n",
    );
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout)).toEqual({
      id: expect.stringMatching(/^usr_/),
      email: "ops@example.com",
      account_id: "default",
    });
    expect((await session.request("GET", "/console/api/session")).status).toBe(401);
    expect((await new ConsoleClient(t.url).signIn("ops@example.com", "a long passphrase")).status).toBe(401);
    expect((await new ConsoleClient(t.url).signIn("ops@example.com", "a brand new passphrase")).status).toBe(200);

    const short = await gatewayCli(
      ["users", "set-password", "--email", "ops@example.com", "--password-stdin"],
      "short",
    );
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/^gateway: The password must have at least \d+ characters\n$/);
  });

  it("refuses a password of spaces only, counts a password's characters rather than its UTF-16 units, and refuses an email with control or format characters", async () => {
    const users = new Users(t.gateway.core.store.db, t.gateway.core.clock);
    const create = (email: string, password: string) => users.create({ email, accountId: "default", password });
    await expect(create("spaces@example.com", " ".repeat(12))).rejects.toThrow("The password must not be only spaces");
    // Nine emoji are eighteen UTF-16 units, and nine characters.
    await expect(create("emoji@example.com", "🔑".repeat(9))).rejects.toThrow(
      "The password must have at least 10 characters",
    );
    expect((await create("emoji@example.com", "🔑".repeat(10))).email).toBe("emoji@example.com");
    // One the sign-in form could not carry, or nobody could type, is refused too: 1,024 characters at most.
    await expect(create("long@example.com", "a".repeat(1025))).rejects.toThrow(
      "The password must have at most 1024 characters",
    );
    expect((await create("long@example.com", "🔑".repeat(1024))).email).toBe("long@example.com");
    await expect(users.setPassword("emoji@example.com", "\t".repeat(10))).rejects.toThrow(
      "The password must not be only spaces",
    );
    await expect(create("ops\u001b[31m@example.com", "a long passphrase")).rejects.toThrow(
      '"ops\\u001b[31m@example.com" is not an email',
    );
    // Nor format characters: a right-to-left override would reorder the line `users list` prints it on, and a
    // zero-width space would make an email look like another.
    await expect(create("\u202eevil@example.com", "a long passphrase")).rejects.toThrow(
      '"\\u202eevil@example.com" is not an email',
    );
    await expect(create("op\u200bs@example.com", "a long passphrase")).rejects.toThrow(
      '"op\\u200bs@example.com" is not an email',
    );
    expect((await users.list()).map((user) => user.email)).not.toContain("spaces@example.com");
  });

  it("reaches a user an earlier version stored decomposed, beside its composed twin, by the email as stored", async () => {
    const { db } = t.gateway.core.store;
    // What migration 0011 leaves when the composed form (ガ as one code point) is taken: カ and U+3099.
    await db
      .insertInto("console_users")
      .values([
        storedUserRow("usr_twincomposed0001", "\u30ac@twin.jp"),
        storedUserRow("usr_twindecomposed01", "\u30ab\u3099@twin.jp"),
      ])
      .execute();
    const listed = await gatewayCli(["users", "list"]);
    expect(listed.stdout).toMatch(/^usr_twincomposed0001 {2}\u30ac@twin\.jp {2}account default/m);
    expect(listed.stdout).toMatch(/^usr_twindecomposed01 {2}\u30ab\\u3099@twin\.jp {2}account default/m);
    // Typed as stored, each reaches its own row.
    const decomposed = await gatewayCli(["users", "delete", "--email", "\u30ab\u3099@twin.jp", "--json"]);
    expect([decomposed.code, JSON.parse(decomposed.stdout).id]).toEqual([0, "usr_twindecomposed01"]);
    const composed = await gatewayCli(["users", "delete", "--email", "\u30ac@twin.jp", "--json"]);
    expect([composed.code, JSON.parse(composed.stdout).id]).toEqual([0, "usr_twincomposed0001"]);
  });

  it("deletes a user: signing in and the user's open sessions stop working", async () => {
    const session = new ConsoleClient(t.url);
    expect((await session.signIn("ops@example.com", "a brand new passphrase")).status).toBe(200);
    const deleted = await gatewayCli(["users", "delete", "--email", "ops@example.com", "--json"]);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ email: "ops@example.com", deleted: true });
    expect((await session.request("GET", "/console/api/session")).status).toBe(401);
    expect((await new ConsoleClient(t.url).signIn("ops@example.com", "a brand new passphrase")).status).toBe(401);

    const again = await gatewayCli(["users", "delete", "--email", "ops@example.com"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe("gateway: No console user with the email ops@example.com\n");
  });
});
