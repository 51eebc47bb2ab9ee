// Secret rotation: with a grace both secrets sign (one v2 each) until the grace ends, and a further rotation ends the
// grace of the one before; without one only the new secret signs at once. The secret is shown by set (on creation)
// and rotate only.
import { afterEach, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../../sdk/src/index.ts";
import { closeAll, hmac, sendTestEvent, setupWebhooks } from "./setup.ts";

afterEach(closeAll);

async function rotate(setup: Awaited<ReturnType<typeof setupWebhooks>>, body: object) {
  const response = await setup.gateway.call("platform", "rotate_webhook_secret", body);
  expect(response.status).toBe(200);
  return (
    (await response.json()) as {
      data: { secret: string; endpoint: { previous_secret_expires_at: string | null; updated_at: string } };
    }
  ).data;
}

describe("webhook secret rotation", () => {
  it("with a grace, signs with the new and the old secret until the grace ends", async () => {
    const setup = await setupWebhooks();
    const old = setup.secret;
    setup.clock.advance(5_000);
    const rotated = await rotate(setup, { grace_seconds: 3600 });
    expect(rotated.endpoint.updated_at).toBe(new Date(setup.clock.now()).toISOString());
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect(rotated.secret).not.toBe(old);
    expect(rotated.endpoint.previous_secret_expires_at).toBe(new Date(setup.clock.now() + 3600_000).toISOString());

    await sendTestEvent(setup.gateway);
    const [during] = await setup.receiver.waitFor(1);
    const t = Math.floor(setup.clock.now() / 1000);
    const signed = `${t}.${during?.body}`;
    expect(during?.headers["gateway-signature"]).toBe(
      `t=${t},v2=${hmac(rotated.secret, signed)},v2=${hmac(old, signed)}`,
    );
    for (const secret of [old, rotated.secret]) {
      const header = during?.headers["gateway-signature"];
      await expect(
        verifyWebhook({ rawBody: during?.body ?? "", header, secret, now: setup.clock.now() }),
      ).resolves.toBeDefined();
    }

    setup.clock.advance(3600_000);
    await sendTestEvent(setup.gateway);
    const after = (await setup.receiver.waitFor(2))[1];
    const t2 = Math.floor(setup.clock.now() / 1000);
    expect(after?.headers["gateway-signature"]).toBe(`t=${t2},v2=${hmac(rotated.secret, `${t2}.${after?.body}`)}`);
  });

  it("a second rotation ends the grace of the secret before: at most two secrets sign", async () => {
    const setup = await setupWebhooks();
    const first = setup.secret;
    const second = await rotate(setup, { grace_seconds: 3600 });
    const third = await rotate(setup, { grace_seconds: 60 });
    expect(third.endpoint.previous_secret_expires_at).toBe(new Date(setup.clock.now() + 60_000).toISOString());
    await sendTestEvent(setup.gateway);
    const [request] = await setup.receiver.waitFor(1);
    const t = Math.floor(setup.clock.now() / 1000);
    const signed = `${t}.${request?.body}`;
    expect(request?.headers["gateway-signature"]).toBe(
      `t=${t},v2=${hmac(third.secret, signed)},v2=${hmac(second.secret, signed)}`,
    );
    expect(request?.headers["gateway-signature"]).not.toContain(hmac(first, signed));
    for (let index = 0; index < 5; index++) await rotate(setup, { grace_seconds: 3600 });
    const stored = await setup.gateway.gateway.core.store.db.selectFrom("webhook_secrets").selectAll().execute();
    expect(stored).toHaveLength(2);
  });

  it("without a grace, signs only with the new secret at once", async () => {
    const setup = await setupWebhooks();
    const rotated = await rotate(setup, {});
    expect(rotated.endpoint.previous_secret_expires_at).toBeNull();
    await sendTestEvent(setup.gateway);
    const [request] = await setup.receiver.waitFor(1);
    const t = Math.floor(setup.clock.now() / 1000);
    expect(request?.headers["gateway-signature"]).toBe(`t=${t},v2=${hmac(rotated.secret, `${t}.${request?.body}`)}`);
    await expect(
      verifyWebhook({
        rawBody: request?.body ?? "",
        header: request?.headers["gateway-signature"],
        secret: setup.secret,
        now: setup.clock.now(),
      }),
    ).rejects.toMatchObject({ reason: "no_matching_signature" });
  });

  it("refuses a grace over 7 days, and never shows the secret again", async () => {
    const setup = await setupWebhooks();
    const tooLong = await setup.gateway.call("platform", "rotate_webhook_secret", { grace_seconds: 604_801 });
    expect(tooLong.status).toBe(400);
    const get = await setup.gateway.call("platform", "get_webhook_endpoint");
    const text = await get.text();
    expect(text).not.toContain("whsec_");
    const again = await setup.gateway.call("platform", "set_webhook_endpoint", {
      url: setup.receiver.url,
      event_types: ["order.updated"],
    });
    expect(((await again.json()) as { data: { secret: null } }).data.secret).toBeNull();
    const stored = await setup.gateway.gateway.core.store.db.selectFrom("webhook_secrets").selectAll().execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]?.secret_sealed).not.toContain(setup.secret.slice(6));
    expect(setup.gateway.gateway.core.secretBox.open(stored[0]?.secret_sealed ?? "")).toBe(setup.secret);
  });
});
