import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isPrivateAddress } from "./address-guard.ts";
import { nextAttemptAt } from "./schedule.ts";
import { signatureHeader, verifySignatureHeader } from "./signature.ts";

describe("isPrivateAddress", () => {
  it("refuses private, loopback, link-local, shared, reserved ranges and IPv6 forms embedding them", () => {
    for (const address of [
      "127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "172.31.255.255",
      "192.168.0.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::",
      "::1",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::127.0.0.1",
      "64:ff9b::a00:1",
      "64:ff9b:1::7f00:1",
      "::ffff:0:7f00:1",
      "::ffff:0:a00:1",
      "2002:c0a8:0101::1",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2",
      "2001:2::1",
      "3fff::1",
      "5f00::1",
      "not-an-address",
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
  });

  it("allows public addresses", () => {
    for (const address of [
      "93.184.216.34",
      "8.8.8.8",
      "172.32.0.1",
      "2606:4700::1111",
      "2001:4860:4860::8888",
      "64:ff9b::808:808",
      "::ffff:8.8.8.8",
      "64:ff9b:1::808:808",
      "::ffff:0:808:808",
    ]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });
});

describe("nextAttemptAt", () => {
  const deadline = 24 * 3600_000;
  it("spaces attempts 5 s, 5 min, 30 min, 2 h, 5 h, 10 h with ±20 % jitter, then the deadline, then gives up", () => {
    const delays = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];
    for (const [index, delay] of delays.entries()) {
      expect(nextAttemptAt({ attempts: index + 1, now: 1000, deadline, random: () => 0 })).toBe(1000 + delay * 0.8);
      expect(nextAttemptAt({ attempts: index + 1, now: 1000, deadline, random: () => 0.5 })).toBe(1000 + delay);
      expect(nextAttemptAt({ attempts: index + 1, now: 1000, deadline, random: () => 1 })).toBe(1000 + delay * 1.2);
    }
    expect(nextAttemptAt({ attempts: 7, now: 1000, deadline })).toBe(deadline);
    expect(nextAttemptAt({ attempts: 6, now: deadline - 1000, deadline })).toBe(deadline);
    expect(nextAttemptAt({ attempts: 8, now: deadline, deadline })).toBeUndefined();
    expect(nextAttemptAt({ attempts: 2, now: deadline + 5, deadline })).toBeUndefined();
  });
});

describe("signatureHeader and verifySignatureHeader", () => {
  const secret = "whsec_abcdefghijklmnopqrstuvwxyz012345";
  const body = '{"id":"evt_1"}';
  const now = Date.parse("2026-11-21T00:00:00Z");
  const t = now / 1000;
  const hex = (content: string, key = secret) => createHmac("sha256", key).update(content).digest("hex");

  it("signs t and one v2 per secret, v1 only before 2026-10-01", () => {
    expect(signatureHeader(body, [secret, "whsec_old"], now)).toBe(
      `t=${t},v2=${hex(`${t}.${body}`)},v2=${hex(`${t}.${body}`, "whsec_old")}`,
    );
    const before = Date.parse("2026-09-30T23:59:59Z");
    expect(signatureHeader(body, [secret], before)).toBe(
      `t=${before / 1000},v2=${hex(`${before / 1000}.${body}`)},v1=${hex(body)}`,
    );
    expect(signatureHeader(body, [secret], Date.parse("2026-10-01T00:00:00Z"))).not.toContain("v1=");
  });

  it("verifies inbound hooks: t and v2 present, t within 300 s, a v2 that matches", () => {
    const header = signatureHeader(body, [secret], now);
    const rawBody = Buffer.from(body);
    expect(() => verifySignatureHeader({ header, rawBody, secret, nowMs: now + 300_000 })).not.toThrow();
    expect(() => verifySignatureHeader({ header, rawBody, secret, nowMs: now - 300_000 })).not.toThrow();
    expect(() => verifySignatureHeader({ header, rawBody, secret, nowMs: now + 301_000 })).toThrow(/300 s/);
    expect(() => verifySignatureHeader({ header, rawBody: Buffer.from(`${body} `), secret, nowMs: now })).toThrow(
      /matches/,
    );
    expect(() =>
      verifySignatureHeader({ header: `t=${t},v2=${hex(`${t}.${body}`).slice(0, 10)}`, rawBody, secret, nowMs: now }),
    ).toThrow(/matches/);
    expect(() => verifySignatureHeader({ header: `t=${t},v1=${hex(body)}`, rawBody, secret, nowMs: now })).toThrow(
      /missing/,
    );
    expect(() => verifySignatureHeader({ header: undefined, rawBody, secret, nowMs: now })).toThrow(/missing/);
  });

  it("takes t as the second the delivery is signed in, never a later one", () => {
    expect(signatureHeader(body, [secret], now + 999)).toBe(`t=${t},v2=${hex(`${t}.${body}`)}`);
  });

  it("compares t to the current second: 300 s behind or ahead is within, 301 s is not; t not an integer is refused", () => {
    const rawBody = Buffer.from(body);
    const header = signatureHeader(body, [secret], now);
    const verdict = (offsetMs: number) => {
      try {
        verifySignatureHeader({ header, rawBody, secret, nowMs: now + offsetMs });
        return "accepted";
      } catch (error) {
        return (error as Error).message;
      }
    };
    const late = "The Gateway-Signature header does not verify: t is more than 300 s away from now";
    // The same edges as the SDK's verifyWebhook (packages/sdk/src/webhooks/verify.unit.test.ts).
    const edges = [300_000, 300_999, 301_000, -300_000, -300_001, -301_000];
    expect(edges.map((offset) => [offset, verdict(offset)])).toEqual([
      [300_000, "accepted"], // exactly 300 s old
      [300_999, "accepted"], // the last millisecond of second t + 300
      [301_000, late], // 300 s + 1 s old
      [-300_000, "accepted"], // t 300 s in the future
      [-300_001, late], // the last millisecond of second t - 301
      [-301_000, late], // t 301 s in the future
    ]);
    const decimal = `t=${t}.0,v2=${hex(`${t}.0.${body}`)}`;
    expect(() => verifySignatureHeader({ header: decimal, rawBody, secret, nowMs: now })).toThrow(/not an integer/);
  });
});
