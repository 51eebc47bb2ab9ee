// A stateful provider answering a create, a read or a hook the gateway cannot take: a revision past 2^53 − 1 or not a
// number, no id, a state it does not have. Such an answer would leave the copy unable to take any later change (or
// fail to be stored at all, a 500): it is a 502 provider_unavailable like any unreadable answer, and nothing of it is
// stored or announced. Over real HTTP, with the payments sandbox's answers rewritten on their way out.
import { createPaymentsSandbox, signHook } from "@provider-gateway/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callOperation, copies, type ProviderSetup, startStatefulProvider } from "./provider-setup.ts";

let s: ProviderSetup;
/** Rewrites the sandbox's next answer to a charge call. */
let rewrite: ((body: { charge: Record<string, unknown> }) => unknown) | undefined;
const hookSecret = "whsec_paymentsSandboxHookSecretForTests01";

beforeAll(async () => {
  s = await startStatefulProvider({
    providerId: "payments",
    async sandbox(hooks) {
      const sandbox = createPaymentsSandbox({ hooks, tickMs: null });
      sandbox.app.addHook("onSend", async (request, _reply, payload) => {
        if (!rewrite || !request.url.startsWith("/v1/charges") || typeof payload !== "string") return payload;
        const change = rewrite;
        rewrite = undefined;
        return JSON.stringify(change(JSON.parse(payload)));
      });
      const url = await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
      return { url, close: () => sandbox.app.close() };
    },
  });
});
afterAll(async () => s?.close());

const create = () => callOperation(s, "create_payment", { amount: 1000, currency: "JPY", description: "probe" });

async function expectUnreadable(answer: Awaited<ReturnType<typeof create>>) {
  expect(answer.status, answer.text).toBe(502);
  expect(answer.body.error).toEqual({
    code: "provider_unavailable",
    message: "The payments provider answered in a shape the gateway cannot read",
    provider: "payments",
    request_id: answer.headers.get("x-request-id"),
    retryable: true,
  });
}

const events = async () =>
  ((await s.t.call("platform", "list_events", { limit: 100 }).then((r) => r.json())) as { data: { events: unknown[] } })
    .data.events.length;

describe("a create answered with what the gateway cannot store", () => {
  const answers: [string, (charge: Record<string, unknown>) => void][] = [
    ["a revision past 2^53 - 1", (charge) => (charge.version = 1e300)],
    ["a revision that is not a number", (charge) => (charge.version = "abc")],
    ["no revision", (charge) => delete charge.version],
    ["no id", (charge) => (charge.id = null)],
    ["a state it does not have", (charge) => (charge.status = "bogus")],
    // Of the right type for the provider's own schema, but mapped to a date the API never answers (year 17814).
    ["a creation time past the year 9999", (charge) => (charge.created = 500_000_000_000)],
  ];
  for (const [name, change] of answers) {
    it(`${name}: 502, nothing stored, no event`, async () => {
      const [storedBefore, eventsBefore] = [await copies(s), await events()];
      rewrite = (body) => {
        change(body.charge);
        return body;
      };
      await expectUnreadable(await create());
      expect(await copies(s)).toEqual(storedBefore);
      expect(await events()).toBe(eventsBefore);
    });
  }

  it("a read answered with a revision past 2^53 - 1 leaves the copy as it was, able to take the next change", async () => {
    const created = await create();
    expect(created.status, created.text).toBe(200);
    const id = created.body.data.id as string;
    rewrite = (body) => ({ charge: { ...body.charge, version: 1e300 } });
    await expectUnreadable(await callOperation(s, "get_payment", { payment_id: id }));
    const read = await callOperation(s, "get_payment", { payment_id: id });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toEqual(created.body.data);
  });

  it("a hook carrying such a revision is refused with 400, and records nothing; the same charge one version on is taken", async () => {
    let charge: Record<string, unknown> = {};
    rewrite = (body) => {
      charge = body.charge;
      return body;
    };
    expect((await create()).status).toBe(200);
    const push = async (id: string, version: number) => {
      const body = JSON.stringify({ id, type: "charge.updated", data: { charge: { ...charge, version } } });
      const signature = signHook(body, hookSecret, Date.now());
      return fetch(`${s.t.url}/hooks/payments`, {
        method: "POST",
        headers: { "content-type": "application/json", "gateway-signature": signature },
        body,
      });
    };
    const revision = () =>
      s.t.gateway.core.store.db
        .selectFrom("provider_resources")
        .select("upstream_revision")
        .where("upstream_id", "=", charge.id as string)
        .executeTakeFirstOrThrow()
        .then((row) => Number(row.upstream_revision));
    const version = charge.version as number;
    const huge = await push("hk_huge", 1e300);
    expect(huge.status).toBe(400);
    expect(((await huge.json()) as { error: { message: string } }).error.message).toBe(
      "The payment the hook carries does not match its schema: /version must be <= 9007199254740991; the hook is refused",
    );
    expect(await revision()).toBe(version);
    // A hook whose state maps to a date the API never answers is refused too, before anything is kept or announced.
    const eventsBefore = await events();
    const farBody = JSON.stringify({
      id: "hk_far",
      type: "charge.updated",
      data: { charge: { ...charge, version: version + 1, created: 500_000_000_000 } },
    });
    const far = await fetch(`${s.t.url}/hooks/payments`, {
      method: "POST",
      headers: { "content-type": "application/json", "gateway-signature": signHook(farBody, hookSecret, Date.now()) },
      body: farBody,
    });
    expect(far.status).toBe(400);
    expect(((await far.json()) as { error: { message: string } }).error.message).toBe(
      'The payment made of the provider\'s answer does not match its schema: /created_at must match format "date-time"; the hook is refused',
    );
    expect(await revision()).toBe(version);
    expect(await events()).toBe(eventsBefore);
    // A creation time past JavaScript's last date (the year 275760) is no date at all: refused alike, not a 500.
    const noDateBody = JSON.stringify({
      id: "hk_no_date",
      type: "charge.updated",
      data: { charge: { ...charge, version: version + 1, created: 10 ** 15 } },
    });
    const noDate = await fetch(`${s.t.url}/hooks/payments`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "gateway-signature": signHook(noDateBody, hookSecret, Date.now()),
      },
      body: noDateBody,
    });
    expect(noDate.status).toBe(400);
    expect(((await noDate.json()) as { error: { message: string } }).error.message).toBe(
      "The payment could not be made of the provider's answer: Invalid time value; the hook is refused",
    );
    expect(await revision()).toBe(version);
    expect((await push("hk_next", version + 1)).status).toBe(200);
    expect(await revision()).toBe(version + 1);
  });
});
