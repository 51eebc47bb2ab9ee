// The sandboxes as their own process (`gateway sandbox --hooks-url`), as several gateway nodes share them: the
// venue's confirmation is pushed to the URL given (here a forwarding proxy standing for the load balancer, since the
// gateway's own port is only known later), signed with GATEWAY_HOOK_SECRET_DINING, and reaches the tenant as
// reservation.confirmed. Without the secret in the environment, --json refuses to start.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { SandboxHooks } from "@provider-gateway/sandbox";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type CliProcess, startCli } from "../cli.ts";
import { type ProviderSetup, startStatefulProvider } from "../stateful/provider-setup.ts";
import { delivered, dining, freeSlot } from "./setup.ts";

/** Leaves the hook secrets of this process's environment, if any, out of a child's. */
const withoutHookSecrets = Object.fromEntries(
  Object.keys(process.env)
    .filter((name) => name.startsWith("GATEWAY_HOOK_SECRET_"))
    .map((name) => [name, undefined]),
);

/** `gateway sandbox` as a child process; answers its upstream URLs (its --json line) and the process. */
async function sandboxProcess(args: string[], env: Record<string, string | undefined>) {
  const sandbox = startCli(["sandbox", "--port-base", "0", "--json", ...args], {
    env: { SANDBOX_VENUE_DELAY_MS: "100", ...env },
  });
  const line = await sandbox.waitForLine(/^/).catch(() => undefined); // its first line, if it prints one
  return { sandbox, urls: line ? (JSON.parse(line) as Record<string, string>) : undefined };
}

/** Forwards POST /hooks/… to wherever the gateway listens once it does (as a load balancer would). */
async function forwardingProxy(target: () => string) {
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const forwarded = await fetch(new URL(request.url ?? "/", target()), {
      method: request.method ?? "POST",
      headers: {
        "content-type": String(request.headers["content-type"] ?? "application/json"),
        "gateway-signature": String(request.headers["gateway-signature"] ?? ""),
      },
      body: Buffer.concat(chunks),
    });
    response.writeHead(forwarded.status, { "content-type": forwarded.headers.get("content-type") ?? "text/plain" });
    response.end(Buffer.from(await forwarded.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

let s: ProviderSetup;
let sandbox: CliProcess | undefined;
let proxy: { url: string; close(): void } | undefined;
beforeAll(async () => {
  s = await startStatefulProvider({
    providerId: "dining",
    async sandbox(hooks: SandboxHooks) {
      proxy = await forwardingProxy(() => hooks.url());
      // Every provider that pushes hooks needs its secret; only dining's is the gateway's in this test.
      const started = await sandboxProcess(["--hooks-url", proxy.url], {
        GATEWAY_HOOK_SECRET_DINING: hooks.secret,
        GATEWAY_HOOK_SECRET_DELIVERY: "whsec_unusedDeliverySecretForThisTest",
        GATEWAY_HOOK_SECRET_RIDES: "whsec_unusedRidesSecretForThisTest",
        GATEWAY_HOOK_SECRET_PAYMENTS: "whsec_unusedPaymentsSecretForThisTest",
      });
      sandbox = started.sandbox;
      if (!started.urls?.dining) throw new Error(`gateway sandbox did not start: ${started.sandbox.stderr()}`);
      return { url: started.urls.dining, close: () => started.sandbox.stop() };
    },
  });
}, 60_000);
afterAll(async () => {
  await s?.close();
  await sandbox?.stop("SIGKILL");
  proxy?.close();
});

it("pushes the venue's confirmation to --hooks-url, signed with GATEWAY_HOOK_SECRET_DINING", async () => {
  const slot = await freeSlot(s, "rst_approval");
  const created = await dining(s, "create_reservation", {
    restaurant_id: "rst_approval",
    slot_id: slot.id,
    party_size: 2,
    contact_name: "山田 花子",
  });
  expect(created.status, created.text).toBe(200);
  expect(created.body.data.status).toBe("pending");
  const event = await delivered(s, "reservation.confirmed", created.body.data.id);
  expect(event.data.object).toMatchObject({ id: created.body.data.id, status: "confirmed" });
});

it("refuses --hooks-url with --json when a hook secret is not in the environment", async () => {
  const started = await sandboxProcess(["--hooks-url", "http://127.0.0.1:9"], withoutHookSecrets);
  expect(started.urls).toBeUndefined();
  expect(started.sandbox.child.exitCode).toBe(1);
  expect(started.sandbox.stderr()).toContain("needs GATEWAY_HOOK_SECRET_");
});

it("prints the lines for the gateway's environment, with the hook secrets it made", async () => {
  const printing = startCli(["sandbox", "--port-base", "0", "--hooks-url", "http://127.0.0.1:9/"], {
    env: withoutHookSecrets,
  });
  try {
    await printing.waitForLine("GATEWAY_HOOK_SECRET_PAYMENTS=");
  } finally {
    await printing.stop();
  }
  // SIGTERM stops it as it stops `serve`: the sandboxes closed, exit status 0.
  expect([printing.child.exitCode, printing.child.signalCode]).toEqual([0, null]);
  const lines = printing.stdout().trim().split("\n");
  expect(lines.filter((line) => line.startsWith("GATEWAY_UPSTREAM_")).length).toBe(8);
  expect(lines).toContainEqual(expect.stringMatching(/^GATEWAY_UPSTREAM_DINING_URL=http:\/\/127\.0\.0\.1:\d+$/));
  const secrets = lines.filter((line) => line.startsWith("GATEWAY_HOOK_SECRET_")).map((line) => line.split("=")[0]);
  expect(secrets.sort()).toEqual([
    "GATEWAY_HOOK_SECRET_DELIVERY",
    "GATEWAY_HOOK_SECRET_DINING",
    "GATEWAY_HOOK_SECRET_PAYMENTS",
    "GATEWAY_HOOK_SECRET_RIDES",
  ]);
  for (const line of lines.filter((l) => l.startsWith("GATEWAY_HOOK_SECRET_"))) {
    expect(line).toMatch(/^GATEWAY_HOOK_SECRET_[A-Z]+=whsec_[A-Za-z0-9_-]{32}$/);
  }
});
