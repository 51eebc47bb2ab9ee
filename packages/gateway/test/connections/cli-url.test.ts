// `gateway connections` given a --url that is not a gateway's: refused with what is wrong with it, before the command
// writes anything or sends a key anywhere, and an answer that is not the gateway's JSON said as such.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli.ts";
import { testStore } from "../harness.ts";

// Each command starts a Node process that loads the whole CLI through tsx: slow on a busy machine.
const slow = { timeout: 180_000 };
let dataDir: string;
let notGateway: Server;
let notGatewayUrl: string;
beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "gateway-cli-url-"));
  // What a wrong port or a proxy's error page answers: HTML, not the gateway's envelope.
  notGateway = createServer((_request, response) => {
    response.writeHead(502, { "content-type": "text/html" }).end("<!DOCTYPE html><h1>Bad Gateway</h1>");
  });
  await new Promise<void>((resolve) => notGateway.listen(0, "127.0.0.1", resolve));
  notGatewayUrl = `http://127.0.0.1:${(notGateway.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => notGateway?.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, {
    env: { GATEWAY_API_KEY: "", GATEWAY_PUBLIC_URL: "", GATEWAY_DATABASE_URL: "", GATEWAY_DATA_DIR: dataDir, ...env },
    timeoutMs: 150_000,
  });

// The commands run on a SQLite store of their own whatever the project: once is enough.
describe.skipIf(testStore() !== "sqlite")("gateway connections --url", slow, () => {
  it("refuses a --url that is not an absolute http(s) URL without query or fragment, naming the option", async () => {
    const cases: [string, string][] = [
      ["notaurl", 'got "notaurl"'],
      ["ftp://gateway.example", 'got "ftp://gateway.example"'],
      ["http://127.0.0.1:8080?x=1", 'got "http://127.0.0.1:8080?x=1"'],
    ];
    for (const [url, got] of cases) {
      for (const command of [
        ["connections", "list", "--key", "gwk_x"],
        ["connections", "create", "--provider", "shopping", "--external-ref", "u"],
      ]) {
        const result = await run([...command, "--url", url]);
        expect(result).toEqual({
          code: 1,
          stdout: "",
          stderr: `gateway: --url must be an absolute http:// or https:// URL without query or fragment, ${got}\n`,
        });
      }
    }
    // Credentials are refused without being repeated.
    const result = await run(["connections", "list", "--key", "gwk_x", "--url", "http://u:secret@127.0.0.1:8080"]);
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: "gateway: --url must not carry credentials (user:password@); the value is not repeated here\n",
    });
  });

  it("says that an answer is not the gateway's, with its status and where it came from", async () => {
    const said =
      `answered HTTP 502 with text/html, not the gateway's JSON; is the gateway running there? ` +
      "Give its URL with --url or GATEWAY_PUBLIC_URL\n";
    const listed = await run(["connections", "list", "--key", "gwk_x", "--url", notGatewayUrl]);
    expect(listed).toEqual({ code: 1, stdout: "", stderr: `gateway: list_connections: ${notGatewayUrl} ${said}` });
    const created = await run(
      ["connections", "create", "--provider", "shopping", "--external-ref", "u", "--json", "--url", notGatewayUrl],
      { GATEWAY_API_KEY: "gwk_x" },
    );
    expect(created).toEqual({
      code: 1,
      stdout: "",
      stderr: `gateway: create_connect_session: ${notGatewayUrl} ${said}`,
    });
  });
});
