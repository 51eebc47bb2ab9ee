// The published package's npm-shrinkwrap.json: the part of the workspace's package-lock.json that the gateway runs on,
// so that `npm install @provider-gateway/gateway` installs the dependency tree the tests ran on (the root's overrides
// included, which npm applies to a workspace only) rather than whatever newest versions the ranges allow.
import fs from "node:fs";
import path from "node:path";

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

/** Where `name` resolves from the package at `location` (a path of the lockfile), as Node resolves it; or none. */
function resolve(packages: Record<string, unknown>, location: string, name: string): string | undefined {
  for (let at = location; ; ) {
    const candidate = at === "" ? `node_modules/${name}` : `${at}/node_modules/${name}`;
    if (candidate in packages) return candidate;
    if (at === "") return undefined;
    const parent = at.lastIndexOf("/node_modules/");
    // A workspace's folder (packages/gateway) has the root above it.
    at = parent === -1 ? "" : at.slice(0, parent);
  }
}

/** Every dependency edge of a lockfile entry: a peer only where it is installed. */
function edges(entry: LockEntry) {
  return [
    ...Object.keys(entry.dependencies ?? {}),
    ...Object.keys(entry.optionalDependencies ?? {}),
    ...Object.keys(entry.peerDependencies ?? {}),
  ];
}

/**
 * The shrinkwrap of the workspace package at `workspace` (e.g. packages/gateway) from the root's lockfile: its
 * dependencies' tree with the same versions and integrities, laid out again with the package as the root (a package
 * that conflicts with one already above it is nested under the package that needs it, as npm itself would).
 */
export function shrinkwrap(root: string, workspace: string) {
  const lock = JSON.parse(fs.readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
    packages: Record<string, LockEntry>;
  };
  const manifest = JSON.parse(fs.readFileSync(path.join(root, workspace, "package.json"), "utf8"));
  const source = lock.packages;
  const packages: Record<string, LockEntry> = {
    "": {
      name: manifest.name,
      version: manifest.version,
      license: manifest.license,
      dependencies: manifest.dependencies,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  // Which lockfile entry each placed package is a copy of.
  const origin = new Map<string, string>([["", workspace]]);
  const queue = [""];
  for (let placed = queue.shift(); placed !== undefined; placed = queue.shift()) {
    const from = origin.get(placed) as string;
    const entry = placed === "" ? { dependencies: manifest.dependencies } : (source[from] as LockEntry);
    for (const name of edges(entry)) {
      const target = resolve(source, from, name);
      // An optional dependency or peer for another platform, or one that is not installed.
      if (target === undefined) continue;
      const existing = resolve(packages, placed, name);
      if (existing !== undefined && origin.get(existing) === target) continue;
      const at =
        existing === undefined ? `node_modules/${name}` : `${placed === "" ? "" : `${placed}/`}node_modules/${name}`;
      const { dev, devOptional, peer, link, resolved, ...copy } = source[target] as LockEntry;
      if (link) throw new Error(`${workspace} depends at run time on the workspace package ${name}: bundle it`);
      packages[at] = copy;
      origin.set(at, target);
      queue.push(at);
    }
  }
  return { name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages };
}
