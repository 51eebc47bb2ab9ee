// Every way a connect flow can go wrong ends on a clear page and creates no connection: consent refused, a wrong
// password, a replayed callback, an authorization code injected into another session (PKCE), an expired or unknown
// link, another browser, and a provider that cannot be reached.
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runConnectFlow } from "../../src/cli/connect-flow.ts";
import { FormBrowser, formsOf, type Page, textOf } from "../../src/cli/form-browser.ts";
import { createConnectionServices } from "../../src/core/connections/setup.ts";
import type { Database } from "../../src/store/schema.ts";
import { deleteRecorder, refuseDeletesFrom, turnsDuring } from "../purges.ts";
import { armFault } from "../sandbox-faults.ts";
import { createSession, platform, type ShoppingSetup, startShopping } from "./setup.ts";

let s: ShoppingSetup;
beforeAll(async () => {
  s = await startShopping();
});
afterAll(async () => s?.close());

const connectionsOf = async (externalRef: string) =>
  (await platform(s.t, "list_connections", { external_ref: externalRef })).body.data.connections;
const sessionRow = (externalRef: string) =>
  s.t.gateway.core.store.db
    .selectFrom("connect_sessions")
    .select(["status", "failure", "connection_id"])
    .where("external_ref", "=", externalRef)
    .executeTakeFirstOrThrow();

/** Runs a flow in `browser` up to the shop's consent page (signed in as demo). */
async function toConsent(browser: FormBrowser, connectUrl: string): Promise<Page> {
  let page = await browser.get(connectUrl);
  page = await browser.submit(page, formsOf(page.html)[0]!);
  page = await browser.submit(page, formsOf(page.html)[0]!, { username: "demo", password: "demo" });
  expect(textOf(page.html)).toContain("Allow Provider Gateway to use your account?");
  return page;
}

/** Answers the consent form but stops before the redirect back reaches the gateway; answers the callback URL. */
async function callbackUrl(browser: FormBrowser, consent: Page, decision = "allow"): Promise<URL> {
  browser.stopBefore = (url) => url.includes("/connect/callback");
  const form = formsOf(consent.html)[0]!;
  const stopped = await browser.submit(
    consent,
    form,
    {},
    form.buttons.find((b) => b.value === decision),
  );
  browser.stopBefore = undefined;
  return new URL(stopped.url);
}

describe("a flow that ends without a connection", () => {
  it("consent refused at the shop", async () => {
    const session = await createSession(s.t, "deny");
    const flow = await runConnectFlow({
      connectUrl: session.connect_url,
      username: "demo",
      password: "demo",
      decision: "deny",
    });
    expect(flow.ok).toBe(false);
    expect(flow.page.status).toBe(403);
    expect(flow.message).toContain("You declined access at Sakura Market");
    expect(await connectionsOf("deny")).toEqual([]);
    expect(await sessionRow("deny")).toEqual({ status: "failed", failure: "denied", connection_id: null });
  });

  it("a shop that sends the browser back with server_error: the page says to try again in a few minutes", async () => {
    const session = await createSession(s.t, "shop_failing_authorization");
    const browser = new FormBrowser();
    const callback = await callbackUrl(browser, await toConsent(browser, session.connect_url));
    callback.searchParams.delete("code");
    callback.searchParams.set("error", "server_error");
    const ended = await browser.get(callback.toString());
    expect([ended.status, textOf(ended.html)]).toEqual([
      502,
      expect.stringContaining("Sakura Market could not be reached, or did not answer properly, just now"),
    ]);
    expect(await sessionRow("shop_failing_authorization")).toMatchObject({
      status: "failed",
      failure: "provider_unavailable",
    });
  });

  it("a wrong password stays on the shop's sign-in page", async () => {
    const session = await createSession(s.t, "wrong_password");
    const flow = await runConnectFlow({ connectUrl: session.connect_url, username: "demo", password: "nope" });
    expect(flow.ok).toBe(false);
    expect(flow.page.status).toBe(401);
    expect(flow.message).toContain("Wrong username or password.");
    expect(await connectionsOf("wrong_password")).toEqual([]);
  });

  it("a replayed callback (the same code and state again) is refused", async () => {
    const session = await createSession(s.t, "replay");
    const browser = new FormBrowser();
    const flow = await runConnectFlow({ connectUrl: session.connect_url, username: "demo", password: "demo", browser });
    expect(flow.ok).toBe(true);
    const replay = await browser.get(browser.visited.at(-1)!);
    expect(replay.status).toBe(410);
    expect(textOf(replay.html)).toContain("This connect link was already used");
    expect(await connectionsOf("replay")).toHaveLength(1);
  });

  it("an authorization code injected into another session fails PKCE at the shop", async () => {
    const victim = new FormBrowser();
    const attacker = new FormBrowser();
    const victimCallback = await callbackUrl(
      victim,
      await toConsent(victim, (await createSession(s.t, "victim")).connect_url),
    );
    const attackerCallback = await callbackUrl(
      attacker,
      await toConsent(attacker, (await createSession(s.t, "attacker")).connect_url),
    );
    // The attacker's code, delivered into the victim's flow (the victim's state and browser).
    const injected = new URL(victimCallback);
    injected.searchParams.set("code", attackerCallback.searchParams.get("code")!);
    const page = await victim.get(injected.toString());
    expect(page.status).toBe(502);
    expect(textOf(page.html)).toContain("Sakura Market did not confirm the connection");
    expect(await connectionsOf("victim")).toEqual([]);
    expect(await sessionRow("victim")).toMatchObject({ status: "failed", failure: "provider_error" });
  });

  it("a callback in another browser than the one that started is refused, and does not use up the session", async () => {
    const session = await createSession(s.t, "two_browsers");
    const starter = new FormBrowser();
    const callback = await callbackUrl(starter, await toConsent(starter, session.connect_url));
    const elsewhere = await new FormBrowser().get(callback.toString());
    expect(elsewhere.status).toBe(400);
    expect(textOf(elsewhere.html)).toContain("Finish in the browser you started in");
    const reopened = await new FormBrowser().get(session.connect_url);
    expect(reopened.status).toBe(400);
    const finished = await starter.get(callback.toString());
    expect(finished.status).toBe(200);
    expect(await connectionsOf("two_browsers")).toHaveLength(1);
  });

  it("an expired link, an unknown link and a callback without state", async () => {
    const session = await createSession(s.t, "late");
    s.clock.advance(31 * 60_000);
    const late = await new FormBrowser().get(session.connect_url);
    expect([late.status, textOf(late.html)]).toEqual([410, expect.stringContaining("This connect link has expired")]);
    const unknown = await new FormBrowser().get(`${s.t.url}/connect/cst_${"x".repeat(32)}`);
    expect([unknown.status, textOf(unknown.html)]).toEqual([
      404,
      expect.stringContaining("This connect link is not valid"),
    ]);
    const bare = await new FormBrowser().get(`${s.t.url}/connect/callback?code=abc`);
    expect(bare.status).toBe(404);
    expect(bare.html).toContain("<!doctype html>");
  });

  it("a link that expires between Continue and the callback: expired at the callback, and expired when opened again", async () => {
    const session = await createSession(s.t, "late_callback");
    const browser = new FormBrowser();
    const callback = await callbackUrl(browser, await toConsent(browser, session.connect_url));
    s.clock.advance(31 * 60_000);
    const ended = await browser.get(callback.toString());
    expect([ended.status, textOf(ended.html)]).toEqual([410, expect.stringContaining("This connect link has expired")]);
    const reopened = await browser.get(session.connect_url);
    expect([reopened.status, textOf(reopened.html)]).toEqual([
      410,
      expect.stringContaining("This connect link has expired"),
    ]);
    expect(await sessionRow("late_callback")).toEqual({ status: "failed", failure: "expired", connection_id: null });
    expect(await connectionsOf("late_callback")).toEqual([]);
  });

  it("a callback after the link expired, from a browser whose binding cookie expired with it: expired", async () => {
    const session = await createSession(s.t, "late_cookie");
    const browser = new FormBrowser();
    const callback = await callbackUrl(browser, await toConsent(browser, session.connect_url));
    s.clock.advance(31 * 60_000);
    // A browser drops the binding cookie when its Max-Age, the link's remaining lifetime, ends: the browser that
    // started comes back without it.
    const ended = await new FormBrowser().get(callback.toString());
    expect([ended.status, textOf(ended.html)]).toEqual([410, expect.stringContaining("This connect link has expired")]);
    expect(await sessionRow("late_cookie")).toEqual({ status: "failed", failure: "expired", connection_id: null });
    expect(await connectionsOf("late_cookie")).toEqual([]);
  });

  it("a shop whose token endpoint fails: a clear page, the session failed, no connection", async () => {
    const session = await createSession(s.t, "shop_down");
    await armFault(s.sandboxUrl, { status: 503, path_prefix: "/oauth/token", count: 1 });
    const flow = await runConnectFlow({ connectUrl: session.connect_url, username: "demo", password: "demo" });
    expect(flow.page.status).toBe(502);
    expect(flow.message).toContain("Sakura Market could not be reached, or did not answer properly, just now");
    expect(await connectionsOf("shop_down")).toEqual([]);
    expect(await sessionRow("shop_down")).toMatchObject({ status: "failed", failure: "provider_unavailable" });
  });
});

describe("flows for one external_ref finishing at the same moment", () => {
  it("each ends on the success page, and exactly one connection is live", async () => {
    const count = 16;
    const flows = await Promise.all(
      Array.from({ length: count }, async () => {
        const browser = new FormBrowser();
        const session = await createSession(s.t, "together");
        return { browser, callback: await callbackUrl(browser, await toConsent(browser, session.connect_url)) };
      }),
    );
    const pages = await Promise.all(flows.map(({ browser, callback }) => browser.get(callback.toString())));
    expect(pages.map((page) => page.status)).toEqual(Array(count).fill(200));
    const sessions = await s.t.gateway.core.store.db
      .selectFrom("connect_sessions")
      .select(["status", "connection_id"])
      .where("external_ref", "=", "together")
      .execute();
    expect(sessions.map((session) => session.status)).toEqual(Array(count).fill("completed"));
    const live = await connectionsOf("together");
    expect(live).toHaveLength(1);
    expect(sessions.map((session) => session.connection_id)).toContain(live[0].id);
  });
});

describe("sessions past their retention", () => {
  it("are deleted a week after their link expired: the link is then not valid rather than expired", async () => {
    const old = await createSession(s.t, "retained");
    const sessions = s.t.gateway.core.connectSessions!;
    s.clock.advance(30 * 60_000 + 7 * 24 * 60 * 60_000 - 1);
    // A week after expiring, less a millisecond: still kept, and still "expired".
    await sessions.purgeExpired();
    expect(await sessionRow("retained")).toEqual({ status: "pending", failure: null, connection_id: null });
    const kept = await new FormBrowser().get(old.connect_url);
    expect([kept.status, textOf(kept.html)]).toEqual([410, expect.stringContaining("This connect link has expired")]);
    // A millisecond on, the purge deletes it.
    s.clock.advance(1);
    expect(await sessions.purgeExpired()).toBeGreaterThanOrEqual(1);
    const left = await s.t.gateway.core.store.db
      .selectFrom("connect_sessions")
      .select("external_ref")
      .where("external_ref", "=", "retained")
      .execute();
    expect(left).toEqual([]);
    const gone = await new FormBrowser().get(old.connect_url);
    expect([gone.status, textOf(gone.html)]).toEqual([404, expect.stringContaining("This connect link is not valid")]);
  });

  describe("a backlog", () => {
    const retention = 7 * 24 * 60 * 60_000;
    const session = (name: string, expiresAt: number) => ({
      id: `cs_${name}`,
      token_hash: `hash-${name}`,
      account_id: "default",
      provider_id: "shopping",
      external_ref: name,
      status: "pending" as const,
      state_hash: null,
      code_verifier: null,
      browser_hash: null,
      failure: null,
      connection_id: null,
      created_at: expiresAt - 30 * 60_000,
      expires_at: expiresAt,
    });
    const backlogLeft = () =>
      s.t.gateway.core.store.db
        .selectFrom("connect_sessions")
        .select("external_ref")
        .where("external_ref", "like", "backlog-%")
        .orderBy("external_ref")
        .execute();

    /** The connection services a new node starts on the gateway's store, through `db` (the store's, with plugins). */
    const servicesOn = (db: Kysely<Database>, log?: { warn(object: object, message: string): void }) => {
      const { core } = s.t.gateway;
      return createConnectionServices({
        store: { ...core.store, db },
        clock: core.clock,
        secretBox: core.secretBox,
        events: core.events,
        publicUrl: core.publicUrl,
        providers: [],
        upstreamUrls: {},
        oauthClients: {},
        timeoutMs: 1_000,
        ...(log && { log }),
      });
    };

    /** 2,500 sessions past their retention and one a millisecond short of it; answers the services of a new node. */
    async function nodeWithBacklog() {
      const { core } = s.t.gateway;
      const db = core.store.db;
      await db.deleteFrom("connect_sessions").where("external_ref", "like", "backlog-%").execute();
      const now = core.clock.now();
      const rows = [
        ...Array.from({ length: 2_500 }, (_, i) => session(`backlog-${i}`, now - retention - 5_000 + i)),
        session("backlog-kept", now - retention + 1),
      ];
      for (let i = 0; i < rows.length; i += 500) {
        await db
          .insertInto("connect_sessions")
          .values(rows.slice(i, i + 500))
          .execute();
      }
      const recorder = deleteRecorder();
      const start = () => servicesOn(db.withPlugin(recorder.plugin));
      return { recorder, start };
    }

    it("is purged by each node at start, a thousand at a time, the event loop turning between batches", async () => {
      const { recorder, start } = await nodeWithBacklog();
      const { result: services, turns } = await turnsDuring(async () => {
        const started = start();
        // The run ends with the deleted connections' purge (none is past its 30 days here).
        await vi.waitFor(() => expect(recorder.deletes.map(([table]) => table)).toContain("connections"), {
          timeout: 10_000,
        });
        return started;
      });
      await services.stopPurge();

      expect(recorder.deletes).toEqual([
        ["connect_sessions", 1_000],
        ["connect_sessions", 1_000],
        ["connect_sessions", 500],
        ["connections", 0],
      ]);
      expect(turns).toBeGreaterThanOrEqual(2);
      expect(await backlogLeft()).toEqual([{ external_ref: "backlog-kept" }]);
    });

    it("still purges deleted connections when the sessions' purge fails, and logs the failure", async () => {
      const { core } = s.t.gateway;
      const recorder = deleteRecorder();
      const warnings: string[] = [];
      const services = servicesOn(
        core.store.db.withPlugin(refuseDeletesFrom("connect_sessions")).withPlugin(recorder.plugin),
        {
          warn: (_object, message) => warnings.push(message),
        },
      );
      await vi.waitFor(() => expect(recorder.deletes.map(([table]) => table)).toEqual(["connections"]), {
        timeout: 10_000,
      });
      await services.stopPurge();
      expect(warnings).toEqual(["connect session purge failed"]);
    });

    it("stops after its current batch when the node stops, and the node waits for that batch", async () => {
      const { recorder, start } = await nodeWithBacklog();
      await start().stopPurge();

      expect(recorder.deletes).toEqual([["connect_sessions", 1_000]]);
      expect(await backlogLeft()).toHaveLength(1_501);
    });
  });
});
