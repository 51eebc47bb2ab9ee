// docs/webhooks.md shows a delivery as the receiver gets it: its body must be an event the gateway can send, with
// `data.object` the reservation exactly as get_reservation answers it, since receivers copy it into their tests. Its
// plain-Node check of a delivery and the gateway's check of inbound hooks, which it says use the same scheme and
// tolerance, accept and refuse the same timestamps.
import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { signatureHeader, verifySignatureHeader } from "../../src/core/webhooks/signature.ts";
import { createAjv } from "../../src/providers/ajv.ts";
import { Reservation } from "../../src/providers/dining/schemas.ts";
import { fieldProblems } from "../../src/providers/registry.ts";

const page = readFileSync(path.resolve(import.meta.dirname, "../../../../docs/webhooks.md"), "utf8");

/** The lines of the ```http block under "What a delivery looks like". */
const deliveryExample = (): string[] => {
  const section = page.slice(page.indexOf("## What a delivery looks like"));
  const block = /```http\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (block === undefined) throw new Error("docs/webhooks.md has no ```http delivery example");
  return block.split("\n");
};

describe("docs/webhooks.md", () => {
  it("shows a delivery whose body is a reservation.confirmed event with the whole reservation", () => {
    const lines = deliveryExample();
    const body = JSON.parse(lines.at(-1) ?? "");
    const eventIdHeader = lines
      .find((line) => line.startsWith("Gateway-Event-Id: "))
      ?.slice("Gateway-Event-Id: ".length);
    expect(Object.keys(body)).toEqual(["id", "type", "created_at", "data"]);
    expect(body.id).toMatch(/^evt_[0-9A-Za-z]{22}$/);
    expect(eventIdHeader).toBe(body.id);
    expect(body.type).toBe("reservation.confirmed");
    const validate = createAjv().compile(Reservation);
    expect(validate(body.data.object), JSON.stringify(fieldProblems(validate.errors))).toBe(true);
    expect(body.data.object.status).toBe("confirmed");
  });

  it("checks t as the gateway checks an inbound hook's: 300 s behind or ahead is within, 301 s is not", () => {
    const section = page.slice(page.indexOf("### Plain Node, without the SDK"));
    const source = /^function verify\([\s\S]*?^}$/m.exec(section)?.[0];
    if (source === undefined) throw new Error("docs/webhooks.md has no plain-Node verify function");
    const secret = "whsec_abcdefghijklmnopqrstuvwxyz012345";
    const documented = new Function("createHmac", "timingSafeEqual", "secret", `${source}\nreturn verify;`)(
      createHmac,
      timingSafeEqual,
      secret,
    ) as (rawBody: Buffer, header: string, nowSeconds: number) => boolean;
    const signedAt = Date.parse("2026-11-21T00:00:00Z");
    const rawBody = Buffer.from('{"id":"hook_1","type":"test.event","data":{}}');
    const header = signatureHeader(rawBody, [secret], signedAt);
    const gateway = (nowMs: number) => {
      try {
        verifySignatureHeader({ header, rawBody, secret, nowMs });
        return true;
      } catch {
        return false;
      }
    };
    // The documented check takes now as its caller gives it by default: Math.floor(Date.now() / 1000).
    const offsets = [300_000, 300_001, 300_500, 300_999, 301_000, -300_000, -300_001, -300_999, -301_000];
    const verdicts = offsets.map((offset) => {
      const nowMs = signedAt + offset;
      return [offset, documented(rawBody, header, Math.floor(nowMs / 1000)), gateway(nowMs)];
    });
    expect(verdicts).toEqual([
      [300_000, true, true],
      [300_001, true, true],
      [300_500, true, true],
      [300_999, true, true],
      [301_000, false, false],
      [-300_000, true, true],
      [-300_001, false, false],
      [-300_999, false, false],
      [-301_000, false, false],
    ]);
  });
});
