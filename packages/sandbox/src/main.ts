// Starts every sandbox upstream for manual use and prints their URLs as JSON:
//   node --import tsx packages/sandbox/src/main.ts [--port-base 9100] [--host 127.0.0.1] [--logger]
// With --port-base N the sandboxes listen on N, N+1, ... in registry order; without it, on free ports.
import { parseArgs } from "node:util";
import { type RunningSandbox, sandboxProviderIds, startSandbox } from "./index.ts";

const { values } = parseArgs({
  options: {
    "port-base": { type: "string" },
    host: { type: "string", default: "127.0.0.1" },
    logger: { type: "boolean", default: false },
  },
});

const portBase = values["port-base"] === undefined ? 0 : Number(values["port-base"]);
if (!Number.isInteger(portBase) || portBase < 0 || portBase + sandboxProviderIds.length > 65_535) {
  console.error(`--port-base must be a port number, got ${values["port-base"]}`);
  process.exit(2);
}

const running: RunningSandbox[] = [];
for (const [index, providerId] of sandboxProviderIds.entries()) {
  const port = portBase === 0 ? 0 : portBase + index;
  running.push(await startSandbox(providerId, { host: values.host, port, logger: values.logger }));
}
console.log(JSON.stringify(Object.fromEntries(running.map((s) => [s.providerId, s.url])), null, 2));

async function shutdown(): Promise<void> {
  await Promise.all(running.map((s) => s.close()));
  process.exit(0);
}
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
