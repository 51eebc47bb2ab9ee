// Runs before `npm pack` and `npm publish` of this package: builds the bundle and the console, copies the console's
// build beside the bundle (dist/console), where the installed gateway serves it from (the console is a workspace
// package of its own that is not published), and writes npm-shrinkwrap.json from the workspace's lockfile.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { shrinkwrap } from "./shrinkwrap.ts";

const root = path.resolve(import.meta.dirname, "../../..");
const gateway = path.join(root, "packages/gateway");
const packedConsole = path.join(gateway, "dist/console");

// npm's own output (`npm pack --json`) is standard output: the builds' go to standard error. A test that packs while
// others run on the builds (npm test's pretest made them) sets GATEWAY_PACK_AS_BUILT: a build in progress would take
// the console's files away from under them.
if (!process.env.GATEWAY_PACK_AS_BUILT)
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: ["ignore", process.stderr, "inherit"] });
fs.rmSync(packedConsole, { recursive: true, force: true });
fs.cpSync(path.join(root, "packages/console/dist"), packedConsole, { recursive: true });
fs.writeFileSync(
  path.join(gateway, "npm-shrinkwrap.json"),
  `${JSON.stringify(shrinkwrap(root, "packages/gateway"), null, 2)}\n`,
);
