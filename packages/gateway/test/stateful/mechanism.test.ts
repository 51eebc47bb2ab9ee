// The stateful-resource mechanism and resource aliases, with the test provider "tickets": the copy answers 404 for
// unknown and foreign ids without calling the upstream, illegal transitions are 409, hooks and calls that carry the
// same change record one event, a hook that beats the creating call is adopted by it, and aliases behave exactly
// like the operations they run (envelope, errors, idempotency, wrong methods).
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { signHook } from "../../../sandbox/src/index.ts";
import { checkAliases } from "../../src/providers/aliases.ts";
import { platformProvider } from "../../src/providers/platform/manifest.ts";
import { testStore } from "../harness.ts";
import { eventually } from "../webhooks/fake-clock.ts";
import { closeAll, setupWebhooks, type WebhookSetup } from "../webhooks/setup.ts";
import { type NativeTicket, ticketProvider, upstream } from "./ticket-provider.ts";

const hookSecret = "whsec_TestHookSecretForTheTicketProvider";
let s: WebhookSetup;
let hookCount = 0;

beforeEach(async () => {
  upstream.tickets.clear();
  upstream.calls = 0;
  upstream.duringCreate = undefined;
  s = await setupWebhooks({
    gateway: { providers: [platformProvider, ticketProvider] },
    env: { GATEWAY_HOOK_SECRET_TICKETS: hookSecret },
  });
});
afterEach(closeAll);

function v1(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, key = s.gateway.key) {
  return fetch(`${s.gateway.url}/v1/tickets${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined && { "content-type": "application/json" }),
      ...headers,
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

async function json(response: Response) {
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

function pushTicket(ticket: NativeTicket) {
  const body = JSON.stringify({ id: `hk_${++hookCount}`, type: "ticket.changed", data: { ticket } });
  return fetch(`${s.gateway.url}/hooks/tickets`, {
    method: "POST",
    headers: { "content-type": "application/json", "gateway-signature": signHook(body, hookSecret, s.clock.now()) },
    body,
  });
}

const eventsOfType = async (type: string) => {
  const { body } = await json(await s.gateway.call("platform", "list_events", { type, limit: 100 }));
  return (body.data.events as any[]).reverse();
};

describe("resource aliases", () => {
  it("POST, GET and DELETE run the operations with the same envelope as the uniform route", async () => {
    const created = await json(await v1("POST", "/tickets", { title: "Hello" }));
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      data: { id: expect.stringMatching(/^tkt_[0-9A-Za-z]{22}$/), status: "open", title: "Hello" },
      meta: { source: "tickets", fetched_at: expect.any(String) },
      pagination: null,
    });
    const id = created.body.data.id;
    const read = await json(await v1("GET", `/tickets/${id}`));
    expect(read.body.data).toEqual(created.body.data);
    const uniform = await json(await s.gateway.call("tickets", "get_ticket", { ticket_id: id }));
    expect(uniform.body.data).toEqual(read.body.data);
    const closed = await json(await v1("DELETE", `/tickets/${id}`));
    expect(closed.body.data).toEqual({ id, status: "closed", title: "Hello" });
  });

  it("refuses wrong methods, query parameters, a body on DELETE and a clash with the path, with the envelope", async () => {
    const { body } = await json(await v1("POST", "/tickets", { title: "Hello" }));
    const id = body.data.id;
    const wrong = await json(await v1("PUT", `/tickets/${id}`, {}));
    expect(wrong.status).toBe(400);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD, DELETE");
    expect(wrong.body.error).toMatchObject({ code: "invalid_request", retryable: false });
    const listing = await json(await v1("GET", "/tickets"));
    expect([listing.status, listing.body.error.code]).toEqual([400, "invalid_request"]);
    const query = await json(await v1("GET", `/tickets/${id}?expand=all`));
    expect(query.body.error.details).toEqual([{ path: "/query/expand", message: "is not an allowed parameter" }]);
    // A parameter's name is one token of the pointer, escaped (RFC 6901).
    const slashed = await json(await v1("GET", `/tickets/${id}?a%2Fb~c=1`));
    expect(slashed.body.error.details).toEqual([{ path: "/query/a~1b~0c", message: "is not an allowed parameter" }]);
    const withBody = await json(await v1("DELETE", `/tickets/${id}`, { reason: "x" }));
    expect(withBody.body.error.details).toEqual([{ path: "", message: "must be empty" }]);
    const unknownField = await json(await v1("POST", "/tickets", { title: "x", colour: "red" }));
    expect(unknownField.body.error.details).toEqual([{ path: "/colour", message: "is not an allowed property" }]);
    const noKey = await fetch(`${s.gateway.url}/v1/tickets/tickets/${id}`);
    expect(noKey.status).toBe(401);
  });

  it("refuses a NUL in the path as the uniform route refuses it in the body, without reading the copy", async () => {
    const calls = upstream.calls;
    const nul = await json(await v1("GET", "/tickets/a%00b"));
    expect(nul.status).toBe(400);
    expect(nul.body.error).toEqual({
      code: "invalid_request",
      message: "The path contains the NUL character (\\u0000), which no field accepts",
      request_id: nul.headers.get("x-request-id"),
      retryable: false,
      details: [{ path: "/ticket_id", message: "must not contain the NUL character (\\u0000)" }],
    });
    expect(upstream.calls).toBe(calls);
  });

  it("replays a POST with the same Idempotency-Key byte for byte, executing it once", async () => {
    const first = await v1("POST", "/tickets", { title: "Once" }, { "idempotency-key": "ticket-1" });
    const firstBody = await first.text();
    const again = await v1("POST", "/tickets", { title: "Once" }, { "idempotency-key": "ticket-1" });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(firstBody);
    expect(upstream.tickets.size).toBe(1);
    const reused = await json(await v1("POST", "/tickets", { title: "Other" }, { "idempotency-key": "ticket-1" }));
    expect([reused.status, reused.body.error.details]).toEqual([409, { reason: "idempotency_key_reused" }]);
  });

  it("appear in the OpenAPI document with path parameters, the envelope and the errors, lint-clean", async () => {
    const document = (await (await fetch(`${s.gateway.url}/openapi.json`)).json()) as any;
    const item = document.paths["/v1/tickets/tickets/{ticket_id}"];
    expect(Object.keys(item)).toEqual(["get", "delete"]);
    expect(item.get.parameters).toEqual([
      { name: "ticket_id", in: "path", required: true, schema: { type: "string", minLength: 1, maxLength: 64 } },
    ]);
    expect(item.get.requestBody).toBeUndefined();
    expect(item.delete.responses["409"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ErrorEnvelope",
    });
    const create = document.paths["/v1/tickets/tickets"].post;
    expect(create.parameters).toEqual([{ $ref: "#/components/parameters/IdempotencyKey" }]);
    expect(create.responses["200"]).toEqual(document.paths["/v1/tickets/create_ticket"].post.responses["200"]);
    const config = await createConfig({ extends: ["recommended"], rules: { "no-server-example.com": "off" } });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: "openapi.json", config });
    expect(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it("the registry refuses aliases that shadow an operation, name no operation, or cannot be valid", () => {
    const bad = (alias: object) => () => checkAliases({ ...ticketProvider, aliases: [alias as never] });
    expect(bad({ method: "POST", path: "/create_ticket", operation: "create_ticket" })).toThrow(/shadow/);
    expect(bad({ method: "GET", path: "/tickets/:ticket_id", operation: "nope" })).toThrow(/no operation/);
    expect(bad({ method: "GET", path: "/tickets", operation: "get_ticket" })).toThrow(/ticket_id is required/);
    expect(bad({ method: "GET", path: "/tickets/:other", operation: "get_ticket" })).toThrow(/not an input/);
  });
});

describe("the gateway's copy", () => {
  it("answers 404 for unknown and other accounts' ids without calling the upstream", async () => {
    const { body } = await json(await v1("POST", "/tickets", { title: "Mine" }));
    await s.gateway.gateway.core.accounts.ensure("other");
    const other = await s.gateway.gateway.core.apiKeys.create({ accountId: "other", name: "o", scopes: ["*"] });
    const calls = upstream.calls;
    for (const [id, key] of [
      ["tkt_unknown", s.gateway.key],
      [body.data.id, other.key],
    ]) {
      const read = await json(await v1("GET", `/tickets/${id}`, undefined, {}, key));
      expect(read.status).toBe(404);
      expect(read.body.error).toEqual({
        code: "not_found",
        message: `There is no ticket ${id}`,
        request_id: expect.any(String),
        retryable: false,
      });
      expect((await v1("DELETE", `/tickets/${id}`, undefined, {}, key)).status).toBe(404);
    }
    expect(upstream.calls).toBe(calls);
  });

  it("names an unknown id in its 404 with the characters that would act (overrides, zero-width, controls) escaped", async () => {
    // U+202E reverses what follows it, U+200B hides, U+0085 is a C1 control: shown as escapes, the rest as sent.
    const read = await json(await v1("GET", `/tickets/${encodeURIComponent("tkt_\u202eab\u200bc\u0085")}`));
    expect(read.status).toBe(404);
    expect(read.body.error.message).toBe("There is no ticket tkt_\\u202eab\\u200bc\\u0085");
  });

  it("refuses an illegal transition with 409 and changes nothing", async () => {
    const { body } = await json(await v1("POST", "/tickets", { title: "Twice" }));
    await v1("DELETE", `/tickets/${body.data.id}`);
    const calls = upstream.calls;
    const again = await json(await v1("DELETE", `/tickets/${body.data.id}`));
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: "conflict",
      details: { reason: "illegal_transition", status: "closed", requested: "closed" },
    });
    expect(upstream.calls).toBe(calls);
    expect(await eventsOfType("order.updated")).toHaveLength(1);
  });

  it("answers the same 409 when the upstream refuses a transition the copy did not know was taken, and catches up", async () => {
    const { body } = await json(await v1("POST", "/tickets", { title: "Closed elsewhere" }));
    // Closed at the upstream by another action whose answer or hook has not reached the copy yet.
    const native = upstream.tickets.get("T-1")!;
    upstream.tickets.set("T-1", { ...native, state: "CLOSED", rev: 2 });
    const refused = await json(await v1("DELETE", `/tickets/${body.data.id}`));
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual({
      code: "conflict",
      message: `The ticket ${body.data.id} is closed: it cannot become closed`,
      request_id: expect.any(String),
      retryable: false,
      details: { reason: "illegal_transition", status: "closed", requested: "closed" },
      fix: "Read the ticket again and act on its current status.",
    });
    const events = await eventsOfType("order.updated");
    expect(events.map((e) => e.data.object)).toEqual([
      { id: body.data.id, status: "closed", title: "Closed elsewhere" },
    ]);
  });

  it("records one event for a change seen by a hook and a call, whichever comes first, and ignores older states", async () => {
    const { body } = await json(await v1("POST", "/tickets", { title: "Race" }));
    const native = upstream.tickets.get("T-1")!;
    const renamed = { ...native, title: "Renamed", rev: 2 };
    upstream.tickets.set("T-1", renamed);
    const answers = await Promise.all([1, 2, 3, 4].map(() => pushTicket(renamed)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect((await pushTicket(native)).status).toBe(200);
    const read = await json(await v1("GET", `/tickets/${body.data.id}`));
    expect(read.body.data.title).toBe("Renamed");
    const events = await eventsOfType("order.updated");
    expect(events.map((e) => e.data.object)).toEqual([read.body.data]);
  });

  it("hooks that arrive before the creating call has recorded the resource record one event per change, in order", async () => {
    upstream.duringCreate = async (ticket) => {
      const renamed = { ...ticket, title: "Renamed", rev: 2 };
      expect((await pushTicket(renamed)).status).toBe(200);
      const closed = { ...renamed, state: "CLOSED" as const, rev: 3 };
      upstream.tickets.set(ticket.key, closed);
      expect((await pushTicket(closed)).status).toBe(200);
      // A state older than the last one pushed changes nothing, and records nothing.
      expect((await pushTicket(renamed)).status).toBe(200);
    };
    const id = (await json(await v1("POST", "/tickets", { title: "Early" }))).body.data.id;
    const events = await eventsOfType("order.updated");
    expect(events.map((e) => e.data.object)).toEqual([
      { id, status: "open", title: "Renamed" },
      { id, status: "closed", title: "Renamed" },
    ]);
    const read = await json(await v1("GET", `/tickets/${id}`));
    expect(read.body.data).toEqual({ id, status: "closed", title: "Renamed" });
  });

  it("a hook that arrives before the creating call has recorded the resource is adopted by that call", async () => {
    upstream.duringCreate = async (ticket) => {
      const closed = { ...ticket, state: "CLOSED" as const, rev: 2 };
      upstream.tickets.set(ticket.key, closed);
      expect((await pushTicket(closed)).status).toBe(200);
    };
    const created = await json(await v1("POST", "/tickets", { title: "Early" }));
    expect(created.body.data.status).toBe("open");
    const read = await json(await v1("GET", `/tickets/${created.body.data.id}`));
    expect(read.body.data).toEqual({ id: created.body.data.id, status: "closed", title: "Early" });
    const events = await eventsOfType("order.updated");
    expect(events.map((e) => e.data.object)).toEqual([read.body.data]);
    const [delivered] = await s.receiver.waitFor(1);
    expect(JSON.parse(delivered!.body).data.object).toEqual(read.body.data);
  });

  // PostgreSQL only: SQLite runs one transaction at a time, so a hook cannot read the copy while a call adopts it.
  it.skipIf(testStore() !== "postgres")(
    "a hook that read the copy before its creating call adopted it records its change's event (the write waits its turn)",
    async () => {
      const db = s.gateway.gateway.core.store.db;
      const waiting = async () =>
        Number(
          (
            await sql<{ n: number }>`select count(*) as n from pg_stat_activity
              where wait_event_type = 'Lock' and query like 'update "provider_resources"%'`.execute(db)
          ).rows[0]?.n,
        );
      let renamedPushed: Promise<Response> | undefined;
      upstream.duringCreate = async (ticket) => {
        const closed = { ...ticket, state: "CLOSED" as const, rev: 2 };
        expect((await pushTicket(closed)).status).toBe(200);
        const renamed = { ...closed, title: "Renamed", rev: 3 };
        upstream.tickets.set(ticket.key, renamed);
        // Hold the copy's row: the adopting call's write waits first, then the hook's, which read the copy unowned.
        let release = () => {};
        const released = new Promise<void>((resolve) => {
          release = resolve;
        });
        const locked = new Promise<void>((resolve) => {
          void db.transaction().execute(async (trx) => {
            await sql`select id from provider_resources where upstream_id = ${ticket.key} for update`.execute(trx);
            resolve();
            await released;
          });
        });
        await locked;
        void (async () => {
          await eventually(async () => ((await waiting()) >= 1 ? true : undefined));
          renamedPushed = pushTicket(renamed);
          await eventually(async () => ((await waiting()) >= 2 ? true : undefined));
          release();
        })();
      };
      const created = await json(await v1("POST", "/tickets", { title: "Early" }));
      expect(created.status).toBe(200);
      await eventually(async () => renamedPushed);
      expect((await renamedPushed!).status).toBe(200);
      const id = created.body.data.id;
      const read = await json(await v1("GET", `/tickets/${id}`));
      expect(read.body.data).toEqual({ id, status: "closed", title: "Renamed" });
      const events = await eventsOfType("order.updated");
      expect(events.map((e) => e.data.object)).toEqual([
        { id, status: "closed", title: "Early" },
        { id, status: "closed", title: "Renamed" },
      ]);
    },
  );
});
