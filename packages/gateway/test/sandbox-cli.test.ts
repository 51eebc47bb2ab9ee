// `gateway sandbox` as a separate process when a sandbox cannot listen: it stops the sandboxes it started, says which
// one failed and why on standard error, and exits with 1 (rather than run on with some providers up). A --port-base
// that is not a port, or too high for every sandbox to get one, is refused before anything starts; so is a hook secret
// whose variable names no provider with hooks.
import net from "node:net";
import { describe, expect, it } from "vitest";
import { runCli } from "./cli.ts";
import { testStore } from "./harness.ts";

// A process that runs on is the failure this guards against: stop it rather than wait for the test's timeout.
const sandbox = (args: string[]) =>
  runCli(["sandbox", ...args], { env: { GATEWAY_DATABASE_URL: "" }, timeoutMs: 30_000 });

const listen = (server: net.Server, port: number) =>
  new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
const close = (server: net.Server) => new Promise((resolve) => server.close(resolve));

/** A port that is free, and a server holding the next one (the second sandbox's). */
async function secondPortTaken(): Promise<{ base: number; taken: net.Server }> {
  for (let base = 19_820; base < 19_899; base++) {
    const probe = net.createServer();
    if (!(await listen(probe, base))) continue;
    await close(probe);
    const taken = net.createServer();
    if (await listen(taken, base + 1)) return { base, taken };
  }
  throw new Error("no two free ports in 19820-19899");
}

// Once, on SQLite: the sandboxes use no store, and two runs at once would contend for the same ports.
describe.skipIf(testStore() !== "sqlite")("gateway sandbox that cannot start", { timeout: 60_000 }, () => {
  it("exits with 1, naming the sandbox whose port is taken, and stops those it started", async () => {
    const { base, taken } = await secondPortTaken();
    try {
      const { code, stdout, stderr } = await sandbox(["--port-base", String(base)]);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toMatch(
        new RegExp(
          `^gateway: the [a-z]+ sandbox could not start: listen EADDRINUSE: address already in use 127\\.0\\.0\\.1:${base + 1}\\n$`,
        ),
      );
      // The first sandbox's port is free again.
      const probe = net.createServer();
      expect(await listen(probe, base)).toBe(true);
      await close(probe);
    } finally {
      await close(taken);
    }
  });

  it.each([
    ["abc", 'gateway: --port-base must be a port number (0 to 65535), got "abc"'],
    ["70000", 'gateway: --port-base must be a port number (0 to 65535), got "70000"'],
    ["65533", /^gateway: --port-base 65533 is too high: the \d+ sandboxes take ports 65533 to \d+, past 65535$/],
  ])("--port-base %s is refused before any sandbox starts", async (value, message) => {
    const { code, stdout, stderr } = await sandbox(["--port-base", value]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr.trimEnd()).toMatch(message);
  });

  it("a hook secret that names no provider with hooks is refused before any sandbox starts", async () => {
    const { code, stdout, stderr } = await runCli(
      ["sandbox", "--port-base", "0", "--hooks-url", "http://127.0.0.1:8080"],
      { env: { GATEWAY_DATABASE_URL: "", GATEWAY_HOOK_SECRET_DINNING: "whsec_misspelt" }, timeoutMs: 30_000 },
    );
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "gateway: GATEWAY_HOOK_SECRET_DINNING: there is no provider dinning; the providers with inbound hooks are " +
        "dining, delivery, rides, payments\n",
    );
  });
});
