// Every failure is retried on the schedule: a 5xx, a timeout, a refused connection, a redirect (never followed), and
// a 4xx such as a receiver's 400 for a signature it could not verify. The event id stays the same on every attempt.
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../harness.ts";
import { startReceiver } from "./receiver.ts";
import { attemptsRecorded, closeAll, hmac, nextAttempt, sendTestEvent, setEndpoint, setupWebhooks } from "./setup.ts";

afterEach(closeAll);

describe("webhook retries", () => {
  it("retry after a 500, with the same event id and body and a fresh signature", async () => {
    let status = 500;
    const setup = await setupWebhooks({ answer: () => ({ status, body: "Internal Server Error" }) });
    const event = await sendTestEvent(setup.gateway);
    const first = await attemptsRecorded(setup.gateway, event.id, 1);
    expect(first).toMatchObject({ status: "pending", attempts: [{ attempt: 1, status_code: 500, error: "HTTP 500" }] });
    expect(first.attempts[0]?.response_body).toBe("Internal Server Error");
    status = 200;
    const second = await nextAttempt(setup, event.id);
    expect(second.status).toBe("succeeded");
    const [a, b] = setup.receiver.received;
    expect(b?.headers["gateway-event-id"]).toBe(event.id);
    expect(a?.headers["gateway-event-id"]).toBe(event.id);
    expect([a?.headers["gateway-delivery-attempt"], b?.headers["gateway-delivery-attempt"]]).toEqual(["1", "2"]);
    expect(b?.body).toBe(a?.body);
    const t = Math.floor(setup.clock.now() / 1000);
    expect(b?.headers["gateway-signature"]).toBe(`t=${t},v2=${hmac(setup.secret, `${t}.${b?.body}`)}`);
    expect(b?.headers["gateway-signature"]).not.toBe(a?.headers["gateway-signature"]);
  });

  it("retry after a timeout (a receiver that does not answer in time)", async () => {
    let hang = true;
    const setup = await setupWebhooks({
      answer: () => (hang ? "hang" : { status: 204 }),
      env: { GATEWAY_WEBHOOK_TIMEOUT_MS: "1000" },
    });
    const event = await sendTestEvent(setup.gateway);
    const first = await attemptsRecorded(setup.gateway, event.id, 1);
    expect(first.attempts[0]).toMatchObject({ status_code: null, error: "timeout: no complete answer within 1000 ms" });
    hang = false;
    expect((await nextAttempt(setup, event.id)).status).toBe("succeeded");
    expect(setup.receiver.received.map((r) => r.headers["gateway-event-id"])).toEqual([event.id, event.id]);
  });

  it("retry after a refused connection", async () => {
    const setup = await setupWebhooks();
    const closedPort = await freePort();
    await setEndpoint(setup.gateway, `http://127.0.0.1:${closedPort}/hooks`);
    const event = await sendTestEvent(setup.gateway);
    const first = await attemptsRecorded(setup.gateway, event.id, 1);
    expect(first.attempts[0]).toMatchObject({ status_code: null, error: "connection refused" });
    expect(first.status).toBe("pending");
    await setEndpoint(setup.gateway, setup.receiver.url);
    expect((await nextAttempt(setup, event.id)).status).toBe("succeeded");
    expect(setup.receiver.received[0]?.headers).toMatchObject({
      "gateway-event-id": event.id,
      "gateway-delivery-attempt": "2",
    });
  });

  it("retry after a TLS handshake that failed, said without OpenSSL's source lines", async () => {
    const setup = await setupWebhooks();
    // The receiver speaks plain HTTP: an https URL to it fails in the handshake.
    await setEndpoint(setup.gateway, setup.receiver.url.replace(/^http:/, "https:"));
    const event = await sendTestEvent(setup.gateway);
    const first = await attemptsRecorded(setup.gateway, event.id, 1);
    expect(first.attempts[0]).toMatchObject({
      status_code: null,
      error: "ERR_SSL_WRONG_VERSION_NUMBER: the TLS handshake failed",
    });
    expect(first.status).toBe("pending");
  });

  it("retry after a 302 without following the redirect", async () => {
    const elsewhere = await startReceiver();
    try {
      let redirect = true;
      const setup = await setupWebhooks({
        answer: () => (redirect ? { status: 302, headers: { location: elsewhere.url } } : { status: 200 }),
      });
      const event = await sendTestEvent(setup.gateway);
      const first = await attemptsRecorded(setup.gateway, event.id, 1);
      expect(first.attempts[0]).toMatchObject({
        status_code: 302,
        error: `redirect to ${elsewhere.url} not followed`,
      });
      redirect = false;
      expect((await nextAttempt(setup, event.id)).status).toBe("succeeded");
      expect(elsewhere.received).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it("says a redirect without a Location is one, rather than naming a target it does not have", async () => {
    const setup = await setupWebhooks({ answer: () => ({ status: 307 }) });
    const event = await sendTestEvent(setup.gateway);
    const first = await attemptsRecorded(setup.gateway, event.id, 1);
    expect(first.attempts[0]).toMatchObject({ status_code: 307, error: "HTTP 307, a redirect without a Location" });
  });

  it("a receiver answering 400 (signature it cannot verify) keeps getting retries until it accepts", async () => {
    let accept = false;
    const setup = await setupWebhooks({
      answer: () => (accept ? { status: 200 } : { status: 400, body: "bad signature" }),
    });
    const event = await sendTestEvent(setup.gateway);
    await attemptsRecorded(setup.gateway, event.id, 1);
    await nextAttempt(setup, event.id);
    const third = await nextAttempt(setup, event.id);
    expect(third.attempts.map((a) => a.status_code)).toEqual([400, 400, 400]);
    expect(third.status).toBe("pending");
    accept = true;
    const fourth = await nextAttempt(setup, event.id);
    expect(fourth.status).toBe("succeeded");
    expect(new Set(setup.receiver.received.map((r) => r.headers["gateway-event-id"]))).toEqual(new Set([event.id]));
  });

  it("redelivery sends the same event id again, as a new delivery", async () => {
    const setup = await setupWebhooks();
    const event = await sendTestEvent(setup.gateway);
    await attemptsRecorded(setup.gateway, event.id, 1);
    const response = await setup.gateway.call("platform", "redeliver_event", { event_id: event.id });
    expect(response.status).toBe(200);
    await setup.receiver.waitFor(2);
    const [a, b] = setup.receiver.received;
    expect(b?.headers["gateway-event-id"]).toBe(event.id);
    expect(b?.body).toBe(a?.body);
  });
});
