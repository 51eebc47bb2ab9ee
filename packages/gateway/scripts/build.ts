// Builds the gateway and its CLI into one ES module (packages/gateway/dist/gateway.mjs) so that `gateway` runs as
// plain JavaScript: no TypeScript loader at run time, a faster start and a smaller resident set. Dependencies stay in
// node_modules; the workspace's own TypeScript packages (the sandboxes) are bundled in.
import path from "node:path";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "../../..");

await build({
  entryPoints: [path.join(root, "packages/gateway/src/cli/main.ts")],
  outfile: path.join(root, "packages/gateway/dist/gateway.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  alias: { "@provider-gateway/sandbox": path.join(root, "packages/sandbox/src/index.ts") },
  sourcemap: true,
  logLevel: "warning",
});
