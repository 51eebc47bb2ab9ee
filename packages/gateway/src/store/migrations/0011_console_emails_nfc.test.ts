// The migration that composes console users' emails (NFC), on the store under test: a decomposed email is rewritten,
// unless another user holds its composed form already.
import { afterAll, beforeAll, expect, it } from "vitest";
import { storedUserRow as row } from "../../../test/console/console-client.ts";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { up } from "./0011_console_emails_nfc.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ env: { GATEWAY_NO_WEBHOOK_WORKER: "1" } });
});
afterAll(async () => t?.close());

it("composes the emails of console users, leaving one whose composed form is taken", async () => {
  const { db } = t.gateway.core.store;
  // What an earlier version stored as typed: ガ as カ and U+3099.
  await db
    .insertInto("console_users")
    .values([
      row("usr_decomposed", "\u30ab\u3099@example.jp"),
      row("usr_composed_b", "b\u30ac@example.jp"),
      row("usr_decomposed_b", "b\u30ab\u3099@example.jp"),
    ])
    .execute();
  await up(db as never);
  const emails = await db.selectFrom("console_users").select(["id", "email"]).orderBy("id").execute();
  expect(emails).toEqual([
    { id: "usr_composed_b", email: "b\u30ac@example.jp" },
    { id: "usr_decomposed", email: "\u30ac@example.jp" },
    { id: "usr_decomposed_b", email: "b\u30ab\u3099@example.jp" },
  ]);
});
