// A token refresh that commits while a connection is being ended (on PostgreSQL the refresh and the ending run on two
// connections): the grant revoked is the one the row holds as it is ended, the rotated refresh token, not the one it
// held before the refresh. The refresh's commit is held open on a connection of its own until the ending waits for it.
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { ProviderOAuthClient } from "../../src/core/connections/oauth-client.ts";
import { connect, platform, type ShoppingSetup, startShopping } from "./setup.ts";

let s: ShoppingSetup;
beforeAll(async () => {
  s = await startShopping();
});
afterAll(async () => s?.close());
afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * Writes the connection's tokens as a refresh stores them, in a transaction left open on a connection of its own:
 * `commitOnceWaitedFor` commits it once a statement of another connection waits for the row lock it holds.
 */
async function refreshHeldOpen(connectionId: string, refreshToken: string) {
  const { store, secretBox } = s.t.gateway.core;
  let written: (pid: number) => void = () => {};
  const wrote = new Promise<number>((resolve) => {
    written = resolve;
  });
  let commit: () => void = () => {};
  const committing = new Promise<void>((resolve) => {
    commit = resolve;
  });
  const done = store.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("connections")
      .set((eb) => ({
        access_token: secretBox.seal("at_after_refresh"),
        refresh_token: secretBox.seal(refreshToken),
        token_version: eb("token_version", "+", 1),
      }))
      .where("id", "=", connectionId)
      .execute();
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
    written(rows[0]!.pid);
    await committing;
  });
  const pid = await wrote;
  return {
    async commitOnceWaitedFor() {
      // Polled until another backend is blocked by this one: an event, whatever the time it takes.
      for (;;) {
        const { rows } = await sql<{ waiting: number }>`
          select count(*)::int as waiting from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`.execute(
          store.db,
        );
        if ((rows[0]?.waiting ?? 0) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      commit();
      await done;
    },
  };
}

it("delete_connection revokes the refresh token a refresh committed while it was ending the connection", async () => {
  const { connection } = await connect(s.t, "race_delete");
  const revoke = vi.spyOn(ProviderOAuthClient.prototype, "revoke");

  const refresh = await refreshHeldOpen(connection.id, "rt_rotated_meanwhile");
  const deleting = platform(s.t, "delete_connection", { connection_id: connection.id });
  await refresh.commitOnceWaitedFor();

  const { status } = await deleting;
  expect(status).toBe(200);
  expect(revoke.mock.calls.map(([token]) => token)).toEqual(["rt_rotated_meanwhile"]);
});

it("a completed flow revokes the replaced connection's refresh token a refresh committed while it replaced it", async () => {
  const { connection: old } = await connect(s.t, "race_replace");
  const revoke = vi.spyOn(ProviderOAuthClient.prototype, "revoke");

  const refresh = await refreshHeldOpen(old.id, "rt_rotated_while_replaced");
  const replacing = connect(s.t, "race_replace");
  await refresh.commitOnceWaitedFor();

  const { connection } = await replacing;
  expect(connection.id).not.toBe(old.id);
  expect(revoke.mock.calls.map(([token]) => token)).toEqual(["rt_rotated_while_replaced"]);
});
