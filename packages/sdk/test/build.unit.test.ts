// Builds the package with its real tsup config into a scratch node_modules, then loads it by name from plain Node
// processes, once with require() and once with import(): the exports map, both formats and the types must work.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as source from "../src/index.ts";

const packageDir = join(import.meta.dirname, "..");
const scratch = mkdtempSync(join(tmpdir(), "sdk-build-"));
const installed = join(scratch, "node_modules", "@provider-gateway", "sdk");
const tsup = createRequire(import.meta.url).resolve("tsup/dist/cli-default.js");

// Runs in the child: signs with /node (sync), verifies with the main entry (async), checks that /node throws the
// main entry's error class (one shared chunk), and lists the exports.
const probe = `
  const sdk = SDK_MAIN; const node = SDK_NODE;
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const body = JSON.stringify({ id: "evt_1", type: "test.event", created_at: "2026-01-01T00:00:00Z", data: { object: {} } });
  const header = node.signWebhookPayloadSync({ payload: body, secret });
  sdk.verifyWebhook({ rawBody: body, header, secret }).then((event) => {
    let failure;
    try { node.verifyWebhookSync({ rawBody: body + " ", header, secret }); } catch (error) { failure = error; }
    console.log(JSON.stringify({
      exports: Object.keys(sdk).sort(),
      nodeExports: Object.keys(node).sort(),
      eventId: event.id,
      sameErrorClass: failure instanceof sdk.WebhookVerificationError,
      reason: failure.reason,
      fromResponse: sdk.errorFromResponse(404, { error: { code: "not_found", message: "m", request_id: "r" } }).name,
      clientMethod: typeof new sdk.GatewayClient({ apiKey: "k", baseUrl: "http://127.0.0.1:1" }).catalog.productDetail,
    }));
  });
`;

function run(args: string[]): Record<string, unknown> {
  return JSON.parse(execFileSync(process.execPath, args, { cwd: scratch, encoding: "utf8" })) as Record<
    string,
    unknown
  >;
}

beforeAll(() => {
  cpSync(join(packageDir, "package.json"), join(installed, "package.json"), { recursive: true });
  execFileSync(process.execPath, [tsup, "--out-dir", join(installed, "dist"), "--silent"], { cwd: packageDir });
}, 60_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the built package", () => {
  const sourceExports = Object.keys(source).sort();

  it("loads with require(), both entries, with the same exports as the source", () => {
    const script = probe
      .replace("SDK_MAIN", 'require("@provider-gateway/sdk")')
      .replace("SDK_NODE", 'require("@provider-gateway/sdk/node")');
    const result = run(["-e", script]);
    expect(result).toMatchObject({ eventId: "evt_1", sameErrorClass: true, reason: "no_matching_signature" });
    expect(result).toMatchObject({
      exports: sourceExports,
      nodeExports: ["signWebhookPayloadSync", "verifyWebhookSync"],
    });
    expect(result.fromResponse).toBe("NotFoundError");
    expect(result.clientMethod).toBe("function");
  });

  it("loads with import(), both entries, with the same exports as the source", () => {
    const file = join(scratch, "probe.mjs");
    const script = probe
      .replace("SDK_MAIN", 'await import("@provider-gateway/sdk")')
      .replace("SDK_NODE", 'await import("@provider-gateway/sdk/node")');
    writeFileSync(file, script);
    const result = run([file]);
    expect(result).toMatchObject({ eventId: "evt_1", sameErrorClass: true, reason: "no_matching_signature" });
    expect(result).toMatchObject({
      exports: sourceExports,
      nodeExports: ["signWebhookPayloadSync", "verifyWebhookSync"],
    });
    expect(result.clientMethod).toBe("function");
  });

  it("tree-shakes: a receiver that imports only verifyWebhook bundles none of the client", async () => {
    const { build } = await import("esbuild");
    const bundle = async (code: string) => {
      const result = await build({
        stdin: { contents: code, resolveDir: scratch, loader: "js" },
        bundle: true,
        write: false,
        minify: true,
        format: "esm",
        platform: "neutral",
      });
      return result.outputFiles[0]?.text ?? "";
    };
    const receiver = await bundle(
      'import { verifyWebhook } from "@provider-gateway/sdk"; globalThis.v = verifyWebhook;',
    );
    const client = await bundle('import { GatewayClient } from "@provider-gateway/sdk"; globalThis.c = GatewayClient;');
    expect(receiver).not.toContain("provider-gateway-sdk-js");
    expect(receiver).not.toContain("createApiKey");
    expect(client).toContain("createApiKey");
    console.log(`minified ESM bundles: verifyWebhook only ${receiver.length} B, GatewayClient ${client.length} B`);
  });

  it("ships declarations for both formats and no runtime dependencies", () => {
    const files = readdirSync(join(installed, "dist"));
    for (const name of ["index.js", "index.cjs", "index.d.ts", "index.d.cts", "node.js", "node.cjs", "node.d.ts"]) {
      expect(files).toContain(name);
    }
    expect(readFileSync(join(installed, "dist", "index.d.ts"), "utf8")).toMatch(/declare function verifyWebhook\(/);
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.license).toBe("MIT");
    // The registry makes a new scoped package restricted (installable by its owners only) unless told public.
    expect(manifest.publishConfig).toEqual({ access: "public" });
  });

  it("packs its licence, its README and the sources its `@provider-gateway/source` condition names, without tests", () => {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const [packed] = JSON.parse(
      execFileSync(npm, ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: packageDir, encoding: "utf8" }),
    ) as [{ files: { path: string }[] }];
    const paths = packed.files.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining(["LICENSE", "README.md", "package.json", "src/index.ts", "src/node.ts"]),
    );
    expect(
      paths.filter((path) => path.includes(".test.") || path.startsWith("test/") || path.startsWith("scripts/")),
    ).toEqual([]);
  });

  it("types a consumer's calls from the built declarations, ESM and CommonJS alike", () => {
    const consumer = `
      import { GatewayClient, isGatewayError } from "@provider-gateway/sdk";
      const client = new GatewayClient({ apiKey: "gwk_x", baseUrl: "https://gateway.example.com" });
      export async function run(): Promise<string> {
        const { data } = await client.platform.createApiKey({ scopes: ["catalog"] });
        const key: string = data.key;
        // @ts-expect-error unknown input fields are refused, as the gateway refuses them
        await client.opendata.listHolidays({ year: 2026, month: 1 });
        // @ts-expect-error a known operation's input is checked by call() too: required fields are missing
        await client.call("dining", "create_reservation", { restaurant_id: "r" });
        const later = await client.call("catalog", "an_operation_added_later", { any: "input" });
        const untyped: unknown = later.data;
        try { await client.call("catalog", "site_metadata"); } catch (error) { if (isGatewayError(error)) return error.code; }
        if (untyped === null) return "";
        return key;
      }
    `;
    writeFileSync(join(scratch, "consumer.mts"), consumer);
    // The same file as .cts resolves the "require" condition: the CommonJS declarations.
    writeFileSync(join(scratch, "consumer.cts"), consumer);
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
    const args = ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--skipLibCheck"];
    const output = execFileSync(
      process.execPath,
      [tsc, ...args, "--lib", "es2022,dom", "consumer.mts", "consumer.cts"],
      {
        cwd: scratch,
        encoding: "utf8",
      },
    );
    expect(output).toBe("");
  });
});
