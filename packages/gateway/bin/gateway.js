#!/usr/bin/env node
// Entry point of the `gateway` CLI: the built bundle (npm run build), or the TypeScript sources through tsx when the
// bundle has not been built (a fresh checkout before `npm run build`). The published package always holds the bundle,
// so tsx is only a devDependency.
import fs from "node:fs";

const bundle = new URL("../dist/gateway.mjs", import.meta.url);
if (fs.existsSync(bundle)) {
  await import(bundle.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/main.ts");
}
