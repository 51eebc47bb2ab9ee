// A node left running with the old master key alone while a rotation moves the store on (a node with the new key
// starts, then the re-seal): it answers /readyz not ready as soon as the store records a key it lacks, a call that
// needs a provider token is answered that this node lacks the key (not a bare 500), the log says it once,
// and its delivery worker leaves deliveries alone: a node with the new key delivers them as their first attempt. A node
// no probe asks learns it from the first value that does not open, and a connect callback or a deletion it cannot
// finish is left, untouched, for a node that can. (SQLite and PostgreSQL.)
import { createHash, randomBytes } from "node:crypto";
import { afterEach, expect, it, vi } from "vitest";
import {
  connect,
  createSession,
  rawConnection,
  type ShoppingSetup,
  shopping,
  startShopping,
} from "../../../test/connections/setup.ts";
import { startTestGateway, type TestGateway } from "../../../test/harness.ts";
import { captureLog, type LogCapture } from "../../../test/log-capture.ts";
import { type Receiver, startReceiver } from "../../../test/webhooks/receiver.ts";
import { hmac } from "../../../test/webhooks/setup.ts";
import { FormBrowser, formsOf } from "../../cli/form-browser.ts";
import { lacksStoreKey, MasterKeyWatch } from "./master-key-watch.ts";
import { resealSecrets } from "./reseal.ts";

const fastWorker = { GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1", GATEWAY_WEBHOOK_POLL_INTERVAL_MS: "20" };

let oldKey: Buffer;
let newKey: Buffer;
let s: ShoppingSetup | undefined;
let receiver: Receiver | undefined;
const nodes: TestGateway[] = [];
/** The log of the node left on the old key. */
let log: LogCapture = captureLog();

afterEach(async () => {
  for (const node of nodes.splice(0).reverse()) await node.close();
  await s?.close();
  await receiver?.close();
  log = captureLog();
});

async function node(setup: ShoppingSetup, env: Record<string, string>, logger?: LogCapture): Promise<TestGateway> {
  const started = await startTestGateway({
    shareStoreWith: setup.t,
    clock: setup.clock,
    env: { GATEWAY_UPSTREAM_SHOPPING_URL: setup.sandboxUrl, ...fastWorker, ...env },
    ...(logger && { logger: { level: "info", stream: logger.stream } }),
  });
  nodes.push(started);
  return started;
}

/**
 * A store under the old key, a node on it with the old key alone and the only webhook worker (logging into `log`),
 * a connection, an endpoint that received one delivery, and a node with the new key (the old one as previous), started
 * as the rolling rotation's first step had been skipped.
 */
async function rotationUnderWay() {
  oldKey = randomBytes(32);
  newKey = randomBytes(32);
  receiver = await startReceiver();
  // The store's first node runs no worker: on SQLite the one worker is then the node under test's, later another's.
  const setup = await startShopping({
    gateway: { env: { GATEWAY_MASTER_KEY: oldKey.toString("base64"), GATEWAY_NO_WEBHOOK_WORKER: "1", ...fastWorker } },
  });
  s = setup;
  const stale = await node(setup, { GATEWAY_MASTER_KEY: oldKey.toString("base64") }, log);
  const { connection } = await connect(setup.t, "watch_a");
  const endpoint = await setup.t.call("platform", "set_webhook_endpoint", { url: receiver.url, event_types: ["*"] });
  const secret = ((await endpoint.json()) as { data: { secret: string } }).data.secret;
  expect((await shopping(stale, "get_cart", connection.id)).status).toBe(200);
  expect((await fetch(`${stale.url}/readyz`)).status).toBe(200);
  expect((await stale.call("platform", "send_test_event")).status).toBe(200);
  expect((await receiver.waitFor(1, 15_000))[0]?.headers["gateway-delivery-attempt"]).toBe("1");
  const rotated = await node(setup, {
    GATEWAY_MASTER_KEY: newKey.toString("base64"),
    GATEWAY_MASTER_KEY_PREVIOUS: oldKey.toString("base64"),
    GATEWAY_NO_WEBHOOK_WORKER: "1",
  });
  const reseal = async () => {
    const keys = { key: newKey, previous: [oldKey], origin: "GATEWAY_MASTER_KEY" };
    expect((await resealSecrets(setup.t.gateway.core.store.db, setup.clock, keys)).checkRecorded).toBe(true);
  };
  return { setup, stale, rotated, connection, secret, reseal, receiver };
}

const watchSaid =
  "this node's master keys no longer open the store's secrets: it answers /readyz not ready and leaves webhook " +
  "deliveries to other nodes until it is restarted with the store's GATEWAY_MASTER_KEY";

/** An answer, its request id's type in place of its value. */
const refusal = async (response: Response) => {
  const body = (await response.json()) as { error?: Record<string, unknown> };
  if (!body.error) return { status: response.status, body };
  return { status: response.status, error: { ...body.error, request_id: typeof body.error.request_id } };
};
const refused = {
  status: 500,
  error: { code: "internal_error", message: lacksStoreKey, request_id: "string", retryable: false },
};

/** The error lines of the stale node's log, and that it names neither key. */
function errorsLogged() {
  const text = log.text();
  for (const key of [oldKey, newKey]) {
    expect(text).not.toContain(key.toString("base64"));
    expect(text).not.toContain(key.toString("hex"));
  }
  return log
    .lines()
    .filter((line) => Number(line.level) >= 50)
    .map(({ msg, reason }) => ({ msg, reason }));
}

it("takes a node left on the old key out of service, saying so once, and leaves its deliveries to a node that can sign", async () => {
  const { setup, stale, rotated, connection, secret, reseal, receiver } = await rotationUnderWay();
  // The new key's node recorded that it seals under a key the stale node lacks: not ready from the next probe on.
  expect(await refusal(await fetch(`${stale.url}/readyz`))).toEqual(refused);

  // The re-seal: the connection's tokens and the endpoint's secret open under the new key only.
  await reseal();
  for (let call = 0; call < 3; call++) {
    expect(await refusal(await shopping(stale, "get_cart", connection.id))).toEqual(refused);
  }
  expect(await refusal(await fetch(`${stale.url}/readyz`))).toEqual(refused);
  expect((await shopping(rotated, "get_cart", connection.id)).status).toBe(200);

  // An event while only the stale node runs a worker: it claims nothing (it polls every 20 ms meanwhile).
  expect((await rotated.call("platform", "send_test_event")).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const { db } = setup.t.gateway.core.store;
  const pending = await db
    .selectFrom("webhook_deliveries")
    .select(["status", "attempt_count", "lease_until"])
    .where("status", "!=", "succeeded")
    .execute();
  expect(pending).toEqual([{ status: "pending", attempt_count: 0, lease_until: null }]);

  // The log says it once, at error, with the start's reason; no line per request, probe or poll.
  expect(errorsLogged()).toEqual([
    {
      msg: watchSaid,
      reason:
        "GATEWAY_MASTER_KEY lacks a key this store's secrets are being sealed with: a rotation of the master key is " +
        "under way, and a node seals under a key this one does not hold. Give it the new key as well (as " +
        "GATEWAY_MASTER_KEY_PREVIOUS, or as GATEWAY_MASTER_KEY with this one as previous) until `gateway master-key " +
        "reseal` has re-sealed the secrets under the new key",
    },
  ]);

  // The stale node stops; a node with the new key delivers the event as its first attempt, signed as before.
  await stale.close();
  nodes.splice(nodes.indexOf(stale), 1);
  await node(setup, { GATEWAY_MASTER_KEY: newKey.toString("base64") });
  const delivery = (await receiver.waitFor(2, 15_000))[1];
  if (!delivery) throw new Error("no delivery");
  expect(delivery.headers["gateway-delivery-attempt"]).toBe("1");
  const t = Math.floor(setup.clock.now() / 1000);
  expect(delivery.headers["gateway-signature"]).toBe(`t=${t},v2=${hmac(secret, `${t}.${delivery.body}`)}`);
});

it("tells a node no probe asks from the first value that does not open", async () => {
  const { stale, connection, reseal } = await rotationUnderWay();
  await reseal();
  // The first call after the re-seal meets a token sealed under the new key: the answer and the log say why.
  for (let call = 0; call < 2; call++) {
    expect(await refusal(await shopping(stale, "get_cart", connection.id))).toEqual(refused);
  }
  expect(await refusal(await fetch(`${stale.url}/readyz`))).toEqual(refused);
  expect(errorsLogged()).toEqual([
    {
      msg: watchSaid,
      reason:
        "GATEWAY_MASTER_KEY is a master key this store retired: `gateway master-key reseal` re-sealed its secrets " +
        "under a new key, which every node needs as GATEWAY_MASTER_KEY (and a retired key cannot seal again)",
    },
  ]);
});

/** Runs a connect flow up to the provider's redirect back; answers the callback URL and the browser's cookies. */
async function upToCallback(connectUrl: string) {
  const browser = new FormBrowser();
  browser.stopBefore = (url) => new URL(url).pathname === "/connect/callback";
  let page = await browser.get(connectUrl);
  const start = formsOf(page.html)[0];
  if (!start) throw new Error("no start form");
  page = await browser.submit(page, start);
  const login = formsOf(page.html).find((form) => "password" in form.fields);
  if (login) page = await browser.submit(page, login, { username: "demo", password: "demo" });
  const consent = formsOf(page.html).find((form) => form.buttons.some((b) => b.value === "allow"));
  if (!consent) throw new Error("no consent form");
  page = await browser.submit(
    page,
    consent,
    {},
    consent.buttons.find((button) => button.value === "allow"),
  );
  const callback = new URL(page.url);
  const jar = (browser as unknown as { jar: Map<string, Map<string, string>> }).jar.get(callback.host);
  const cookie = [...(jar ?? [])].map(([name, value]) => `${name}=${value}`).join("; ");
  return { callback, cookie };
}

it("leaves a connect session whose callback reaches such a node for a node that holds the key", async () => {
  const { setup, stale, rotated } = await rotationUnderWay();
  // Started through the new key's node: its verifier is sealed under the new key.
  const session = await createSession(rotated, "watch_connect");
  const { callback, cookie } = await upToCallback(session.connect_url);
  // The browser comes back through the stale node (both behind one address in a deployment: the cookie goes along).
  const through = (node: TestGateway) => {
    const url = new URL(callback);
    url.host = new URL(node.url).host;
    return fetch(url, { headers: { cookie, accept: "text/html" }, redirect: "manual" });
  };
  expect((await through(stale)).status).toBe(500);
  const { db } = setup.t.gateway.core.store;
  const row = () =>
    db.selectFrom("connect_sessions").select(["status", "failure"]).where("external_ref", "=", "watch_connect");
  expect(await row().executeTakeFirstOrThrow()).toEqual({ status: "started", failure: null });
  // Again through a node that holds the key: the flow completes.
  expect((await through(rotated)).status).toBe(200);
  expect(await row().executeTakeFirstOrThrow()).toEqual({ status: "completed", failure: null });
  expect(errorsLogged()).toEqual([
    { msg: watchSaid, reason: expect.stringContaining("GATEWAY_MASTER_KEY lacks a key") },
  ]);
});

it("deletes nothing on such a node, so that the same call through a node that holds the key deletes and revokes", async () => {
  const { setup, stale, rotated, connection, reseal } = await rotationUnderWay();
  // The grant as the shop knows it: its access token, opened while it is still sealed under the old key.
  const row = await rawConnection(setup.t, connection.id);
  const access = setup.t.gateway.core.secretBox.open(row.access_token ?? "");
  const me = () =>
    fetch(`${setup.sandboxUrl}/api/v2/me`, { headers: { authorization: `Bearer ${access}` } }).then((r) => r.status);
  await reseal();
  // One API key and one Idempotency-Key for both nodes, as a client behind a load balancer retries.
  const remove = (node: TestGateway) =>
    fetch(`${node.url}/v1/platform/delete_connection`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${setup.t.key}`,
        "content-type": "application/json",
        "idempotency-key": "delete-watch-1",
      },
      body: JSON.stringify({ connection_id: connection.id }),
    });
  // A call that needs the token, under a key: refused on the stale node, run (not replayed) through the other.
  const cart = (node: TestGateway) =>
    shopping(node, "get_cart", connection.id, {}, setup.t.key, { "idempotency-key": "cart-watch-1" });
  expect(await refusal(await cart(stale))).toEqual(refused);
  const served = await cart(rotated);
  expect([served.status, served.headers.get("idempotent-replayed")]).toEqual([200, null]);

  expect(await refusal(await remove(stale))).toEqual(refused);
  // Nothing was done: the connection is live, no event says otherwise, the grant still works at the shop.
  const live = await rotated.call("platform", "get_connection", { connection_id: connection.id });
  expect(((await live.json()) as { data: unknown }).data).toEqual({ connection });
  const { db } = setup.t.gateway.core.store;
  const deletedEvents = () => db.selectFrom("events").select("id").where("type", "=", "connection.deleted").execute();
  expect(await deletedEvents()).toEqual([]);
  expect(await me()).toBe(200);

  // The retry, same key, through a node that holds the key: it runs (no replay of the refusal), deletes and revokes.
  const done = await remove(rotated);
  expect([done.status, done.headers.get("idempotent-replayed")]).toEqual([200, null]);
  expect(((await done.json()) as { data: unknown }).data).toEqual({
    connection: { ...connection, status: "deleted", updated_at: expect.any(String), deleted_at: expect.any(String) },
    provider_revoked: true,
  });
  expect(await me()).toBe(401);
  expect(await deletedEvents()).toHaveLength(1);
  expect(errorsLogged()).toEqual([
    { msg: watchSaid, reason: expect.stringContaining("GATEWAY_MASTER_KEY is a master key this store retired") },
  ]);
});

/**
 * A rotation under way, a live connection of `ref` made through the new key's node (its tokens sealed under the new
 * key), and a new session for the same ref started through the stale node (its verifier under the old key, which it
 * opens), up to the provider's redirect back: `through` sends that callback to a node; `me` is the old grant's
 * status at the provider; `sessionRow` the session's state.
 */
async function replacingFlowThroughStale(ref: string) {
  const { setup, stale, rotated } = await rotationUnderWay();
  const { connection: old } = await connect(rotated, ref);
  const oldAccess = rotated.gateway.core.secretBox.open((await rawConnection(setup.t, old.id)).access_token ?? "");
  const me = () =>
    fetch(`${setup.sandboxUrl}/api/v2/me`, { headers: { authorization: `Bearer ${oldAccess}` } }).then((r) => r.status);
  const session = await createSession(stale, ref);
  const { callback, cookie } = await upToCallback(session.connect_url);
  const through = (node: TestGateway) => {
    const url = new URL(callback);
    url.host = new URL(node.url).host;
    return fetch(url, { headers: { cookie, accept: "text/html" }, redirect: "manual" });
  };
  const sessionRow = () =>
    setup.t.gateway.core.store.db
      .selectFrom("connect_sessions")
      .select(["status", "failure"])
      .where("token_hash", "=", createHash("sha256").update(session.token).digest("hex"))
      .executeTakeFirstOrThrow();
  return { setup, stale, old, me, through, sessionRow };
}

it("leaves a connect callback that would replace a connection whose token it cannot open for a node that can", async () => {
  const { setup, stale, old, me, through, sessionRow } = await replacingFlowThroughStale("watch_replace");
  expect((await through(stale)).status).toBe(500);
  // Nothing done: the session is as it was, the old connection live, its grant valid.
  expect(await sessionRow()).toEqual({ status: "started", failure: null });
  expect((await rawConnection(setup.t, old.id)).status).toBe("active");
  expect(await me()).toBe(200);
  // Through a node that holds the key, behind the same public address (the code is exchanged with the redirect URI
  // the flow started with): the flow completes, the old connection is replaced and its grant revoked.
  const behindSameAddress = await node(setup, {
    GATEWAY_MASTER_KEY: newKey.toString("base64"),
    GATEWAY_MASTER_KEY_PREVIOUS: oldKey.toString("base64"),
    GATEWAY_NO_WEBHOOK_WORKER: "1",
    GATEWAY_PUBLIC_URL: stale.config.publicUrl,
  });
  expect((await through(behindSameAddress)).status).toBe(200);
  expect(await sessionRow()).toEqual({ status: "completed", failure: null });
  expect((await rawConnection(setup.t, old.id)).status).toBe("deleted");
  expect(await me()).toBe(401);
  expect(errorsLogged()).toEqual([
    { msg: watchSaid, reason: expect.stringContaining("GATEWAY_MASTER_KEY lacks a key") },
  ]);
});

it("leaves such a callback as it was when the store cannot say whether it refuses the node's keys", async () => {
  const { setup, stale, old, me, through, sessionRow } = await replacingFlowThroughStale("watch_unsaid");
  // The old connection's token does not open on the stale node, and the store fails the check that would say why.
  const check = vi
    .spyOn(MasterKeyWatch.prototype, "check")
    .mockRejectedValueOnce(new Error("the store did not answer"));
  try {
    const answer = await through(stale);
    expect(answer.status).toBe(500);
    expect(check).toHaveBeenCalledTimes(1);
  } finally {
    check.mockRestore();
  }
  // Not taken for an altered token: nothing done, the session left for the browser to come back through a node.
  expect(await sessionRow()).toEqual({ status: "started", failure: null });
  expect((await rawConnection(setup.t, old.id)).status).toBe("active");
  expect(await me()).toBe(200);
});

it("deletes nothing on such a node when the store cannot say whether it refuses the node's keys", async () => {
  const { setup, stale, connection, reseal } = await rotationUnderWay();
  await reseal();
  const check = vi
    .spyOn(MasterKeyWatch.prototype, "check")
    .mockRejectedValueOnce(new Error("the store did not answer"));
  try {
    const answer = await fetch(`${stale.url}/v1/platform/delete_connection`, {
      method: "POST",
      headers: { authorization: `Bearer ${setup.t.key}`, "content-type": "application/json" },
      body: JSON.stringify({ connection_id: connection.id }),
    });
    expect(answer.status).toBe(500);
    expect(check).toHaveBeenCalledTimes(1);
  } finally {
    check.mockRestore();
  }
  // Not taken for an altered token: the connection is live, and no event says otherwise.
  expect((await rawConnection(setup.t, connection.id)).status).toBe("active");
  const { db } = setup.t.gateway.core.store;
  expect(await db.selectFrom("events").select("id").where("type", "=", "connection.deleted").execute()).toEqual([]);
});
