import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseMasterKey, resolveMasterKey } from "./master-key.ts";
import { SecretBox } from "./secret-box.ts";

const key = Buffer.alloc(32, 7);

describe("SecretBox", () => {
  it("seals with a fresh IV each time in the versioned format, and opens what it sealed", () => {
    const box = new SecretBox(key);
    const a = box.seal("whsec_secret");
    const b = box.seal("whsec_secret");
    expect(a).toMatch(/^sb1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(a).not.toBe(b);
    expect(box.open(a)).toBe("whsec_secret");
    expect(box.open(box.seal("トークン"))).toBe("トークン");
  });

  it("refuses another key, altered data and unknown versions", () => {
    const sealed = new SecretBox(key).seal("token");
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed)).toThrow(/does not open/);
    const [version, iv, ciphertext, tag] = sealed.split(".");
    const flipped = Buffer.from(ciphertext ?? "", "base64url");
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => new SecretBox(key).open([version, iv, flipped.toString("base64url"), tag].join("."))).toThrow();
    expect(() => new SecretBox(key).open(sealed.replace("sb1.", "sb9."))).toThrow(/version/);
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow(/32-byte/);
  });

  it("during a rotation, seals under the current key, opens under a previous one too, and re-seals what only that opens", () => {
    const old = Buffer.alloc(32, 8);
    const sealedOld = new SecretBox(old).seal("whsec_old");
    const box = new SecretBox(key, [Buffer.alloc(32, 9), old]);
    expect(box.open(sealedOld)).toBe("whsec_old");
    const sealedNew = box.seal("whsec_new");
    expect(new SecretBox(key).open(sealedNew)).toBe("whsec_new");
    expect(() => new SecretBox(old).open(sealedNew)).toThrow(/does not open/);
    const resealed = box.resealed(sealedOld);
    expect(new SecretBox(key).open(resealed ?? "")).toBe("whsec_old");
    expect(box.resealed(sealedNew)).toBeUndefined();
    expect(() => box.resealed(new SecretBox(Buffer.alloc(32, 10)).seal("x"))).toThrow(/does not open/);
  });
});

describe("master key", () => {
  it("accepts 32 bytes as base64 or hex, nothing else", () => {
    expect(parseMasterKey(key.toString("base64"))).toEqual(key);
    expect(parseMasterKey(key.toString("hex"))).toEqual(key);
    expect(parseMasterKey(key.toString("base64url"))).toEqual(key);
    for (const bad of ["", "short", Buffer.alloc(31).toString("base64"), Buffer.alloc(33).toString("hex")]) {
      expect(() => parseMasterKey(bad)).toThrow(/32 bytes/);
    }
  });

  it("is required in production, generated once into the data directory elsewhere", () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "master-key-"));
    try {
      expect(() => resolveMasterKey({ env: "production", dataDir, masterKey: undefined })).toThrow(/required/);
      const first = resolveMasterKey({ env: "development", dataDir, masterKey: undefined });
      expect(first.warning).toMatch(/Generated/);
      expect(fs.statSync(path.join(dataDir, "master.key")).mode & 0o777).toBe(0o600);
      const second = resolveMasterKey({ env: "development", dataDir, masterKey: undefined });
      expect(second.key).toEqual(first.key);
      const configured = resolveMasterKey({ env: "production", dataDir, masterKey: key.toString("hex") });
      expect(configured).toEqual({ key, origin: "GATEWAY_MASTER_KEY", previous: [] });
      // The previous keys of a rotation, in the order given, the current key left out.
      const old = Buffer.alloc(32, 8);
      const rotating = resolveMasterKey({
        env: "production",
        dataDir,
        masterKey: key.toString("hex"),
        masterKeyPrevious: ` ${old.toString("base64")} ,${key.toString("base64")}`,
      });
      expect(rotating).toEqual({ key, origin: "GATEWAY_MASTER_KEY", previous: [old] });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
