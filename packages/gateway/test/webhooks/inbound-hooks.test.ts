// POST /hooks/{provider_id}: a provider's pushed change, verified with its hook secret, processed once per provider
// event id, turned into gateway events in one transaction; a bad signature is a 400 envelope and changes nothing.
import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createPushHook, signHook } from "../../../sandbox/src/index.ts";
import { platformProvider } from "../../src/providers/platform/manifest.ts";
import { defineProvider } from "../../src/providers/types.ts";
import { freePort } from "../harness.ts";
import { closeAll, hmac, setupWebhooks } from "./setup.ts";

afterEach(closeAll);

const hookSecret = "whsec_TestHookSecretForTheHookProvider0";
const hookProvider = defineProvider({
  id: "hooktest",
  title: "Hook test",
  description: "A provider that only pushes hooks (tests).",
  operations: [],
  async handleHook(event, ctx) {
    if (event.type === "explode") throw new Error("the provider's handler failed");
    await ctx.trx
      .insertInto("accounts")
      .values({
        id: `acct_${event.id}`.toLowerCase().slice(0, 60),
        name: "created by a hook",
        created_at: ctx.clock.now(),
      })
      .execute();
    return { events: [{ accountId: "default", type: "order.updated", object: event.data }] };
  },
});

async function hooksSetup() {
  return setupWebhooks({
    gateway: { providers: [platformProvider, hookProvider] },
    env: { GATEWAY_HOOK_SECRET_HOOKTEST: hookSecret },
  });
}

function post(url: string, body: string, signature: string | undefined) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(signature !== undefined && { "gateway-signature": signature }) },
    body,
  });
}

describe("inbound provider hooks", () => {
  it("accepts a signed hook once, records its events, and answers a repeat as a duplicate", async () => {
    const setup = await hooksSetup();
    const url = `${setup.gateway.url}/hooks/hooktest`;
    const body = JSON.stringify({ id: "hk_1", type: "order.changed", data: { id: "ord_1", status: "accepted" } });
    const first = await post(url, body, signHook(body, hookSecret, setup.clock.now()));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true, duplicate: false });
    const [delivered] = await setup.receiver.waitFor(1);
    expect(JSON.parse(delivered?.body ?? "")).toMatchObject({
      type: "order.updated",
      data: { object: { id: "ord_1", status: "accepted" } },
    });
    setup.clock.advance(1000);
    const again = await post(url, body, signHook(body, hookSecret, setup.clock.now()));
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    const { db } = setup.gateway.gateway.core.store;
    expect(await db.selectFrom("events").select("id").execute()).toHaveLength(1);
    expect(await db.selectFrom("accounts").select("id").where("id", "=", "acct_hk_1").execute()).toHaveLength(1);
  });

  it("refuses a bad signature with 400 and the error envelope, and changes nothing", async () => {
    const setup = await hooksSetup();
    const url = `${setup.gateway.url}/hooks/hooktest`;
    const body = JSON.stringify({ id: "hk_2", type: "order.changed", data: { id: "ord_2" } });
    const now = setup.clock.now();
    const t = Math.floor(now / 1000);
    const cases: (string | undefined)[] = [
      undefined,
      `t=${t}`,
      `t=${t},v2=${hmac("whsec_another", `${t}.${body}`)}`,
      `t=${t - 301},v2=${hmac(hookSecret, `${t - 301}.${body}`)}`,
      `t=${t},v2=${hmac(hookSecret, `${t}.${body} `)}`,
      `t=${t},v1=${hmac(hookSecret, body)}`,
      `t=${t}.5,v2=${hmac(hookSecret, `${t}.5.${body}`)}`,
    ];
    for (const signature of cases) {
      const response = await post(url, body, signature);
      expect(response.status, String(signature)).toBe(400);
      const envelope = (await response.json()) as { error: Record<string, unknown> };
      expect(envelope.error).toMatchObject({
        code: "invalid_request",
        retryable: false,
        request_id: expect.any(String),
      });
    }
    const { db } = setup.gateway.gateway.core.store;
    expect(await db.selectFrom("inbound_hooks").select("provider_event_id").execute()).toEqual([]);
    expect(await db.selectFrom("events").select("id").execute()).toEqual([]);
  });

  it("checks the signature before looking at the body: an unsigned body is refused for its signature alone", async () => {
    const setup = await hooksSetup();
    const url = `${setup.gateway.url}/hooks/hooktest`;
    const message = async (response: Response) =>
      ((await response.json()) as { error: { message: string } }).error.message;
    const unsignedEvent = await message(await post(url, '{"id":"hk_5","type":"t","data":{}}', undefined));
    // Malformed JSON, another content type, no body: the same answer as a well-formed event without a signature.
    expect(await message(await post(url, "{not json", undefined))).toBe(unsignedEvent);
    const text = await fetch(url, { method: "POST", headers: { "content-type": "text/plain" }, body: "hello" });
    expect(text.status).toBe(400);
    expect(await message(text)).toBe(unsignedEvent);
    // Signed, the same malformed body reaches the parser, which names its problem.
    const signed = await post(url, "{not json", signHook("{not json", hookSecret, setup.clock.now()));
    expect(signed.status).toBe(400);
    expect(await message(signed)).toBe("The hook body is not JSON");
  });

  it("refuses text no store keeps as it came (NUL, a lone surrogate, bytes not UTF-8), alike on both stores", async () => {
    const setup = await hooksSetup();
    const url = `${setup.gateway.url}/hooks/hooktest`;
    const cases: [string | Buffer, object][] = [
      [
        '{"id":"hk_nul\\u0000x","type":"t","data":{}}',
        {
          message: "The hook body contains the NUL character (\\u0000), which no field accepts",
          details: [{ path: "/id", message: "must not contain the NUL character (\\u0000)" }],
        },
      ],
      [
        '{"id":"hk_6","type":"t","data":{"name":"\\ud800"}}',
        {
          message:
            "The hook body contains a lone surrogate (\\ud800 to \\udfff without its pair), which is no character",
          details: [
            { path: "/data/name", message: "must not contain a lone surrogate (\\ud800 to \\udfff without its pair)" },
          ],
        },
      ],
      [
        Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
        { message: "The hook body is not valid UTF-8" },
      ],
    ];
    for (const [body, error] of cases) {
      const raw = typeof body === "string" ? Buffer.from(body) : body;
      // Signed over the bytes as sent, as the sandboxes sign (t=…,v2=HMAC-SHA256 of "<t>.<body>").
      const t = Math.floor(setup.clock.now() / 1000);
      const v2 = createHmac("sha256", Buffer.from(hookSecret)).update(`${t}.`).update(raw).digest("hex");
      const signature = `t=${t},v2=${v2}`;
      const signedRaw = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "gateway-signature": signature },
        body: new Uint8Array(raw),
      });
      // The signature holds: the text is what is refused.
      expect(signedRaw.status, String(body)).toBe(400);
      expect(((await signedRaw.json()) as { error: object }).error).toMatchObject({
        code: "invalid_request",
        ...error,
      });
    }
    const { db } = setup.gateway.gateway.core.store;
    expect(await db.selectFrom("inbound_hooks").select("provider_event_id").execute()).toEqual([]);
  });

  it("rolls everything back when the provider's handler fails, so that a retry can succeed", async () => {
    const setup = await hooksSetup();
    const url = `${setup.gateway.url}/hooks/hooktest`;
    const body = JSON.stringify({ id: "hk_3", type: "explode", data: {} });
    const response = await post(url, body, signHook(body, hookSecret, setup.clock.now()));
    expect(response.status).toBe(500);
    const { db } = setup.gateway.gateway.core.store;
    expect(await db.selectFrom("inbound_hooks").select("provider_event_id").execute()).toEqual([]);
  });

  it("answers 404 for a provider without hooks", async () => {
    const setup = await hooksSetup();
    for (const provider of ["platform", "nosuchprovider"]) {
      const response = await post(`${setup.gateway.url}/hooks/${provider}`, "{}", "t=1,v2=00");
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
    }
    const hidden = await post(`${setup.gateway.url}/hooks/${encodeURIComponent("no\u202esuch")}`, "{}", "t=1,v2=00");
    expect(((await hidden.json()) as { error: { message: string } }).error.message).toBe(
      'No inbound hooks for "no\\u202esuch"',
    );
  });

  it("the sandbox's pushHook signs, retries until the gateway answers, and keeps its hook id", async () => {
    const setup = await setupWebhooks({
      gateway: { providers: [platformProvider, hookProvider] },
      env: { GATEWAY_HOOK_SECRET_HOOKTEST: hookSecret },
    });
    setup.clock.set(Date.now());
    const closed = `http://127.0.0.1:${await freePort()}/hooks/hooktest`;
    let calls = 0;
    const push = createPushHook(
      { url: () => (++calls === 1 ? closed : `${setup.gateway.url}/hooks/hooktest`), secret: hookSecret },
      { baseDelayMs: 10 },
    );
    expect(await push("order.changed", { id: "ord_9", status: "placed" })).toBe(true);
    expect(calls).toBe(2);
    const { db } = setup.gateway.gateway.core.store;
    expect(await db.selectFrom("inbound_hooks").select("type").execute()).toEqual([{ type: "order.changed" }]);
    const refused = createPushHook({ url: () => `${setup.gateway.url}/hooks/hooktest`, secret: "whsec_wrong" });
    expect(await refused("order.changed", { id: "ord_10" })).toBe(false);
  });
});
