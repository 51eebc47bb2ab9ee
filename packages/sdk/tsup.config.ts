// Build of the published package: ESM and CJS with declarations, one entry per public path.
import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", node: "src/node.ts" },
  format: ["esm", "cjs"],
  dts: { compilerOptions: { allowImportingTsExtensions: true } },
  outDir: "dist",
  target: "es2022",
  platform: "neutral",
  external: [/^node:/],
  // Shared chunks in both formats, so `/node` and the main entry share one WebhookVerificationError class.
  splitting: true,
  // Rollup tree-shaking also turns the split ESM chunks into CJS; without it tsup falls back to sucrase.
  treeshake: true,
  clean: true,
  sourcemap: false,
  tsconfig: "tsconfig.build.json",
  // Keep `node:crypto` as written: Deno and workers with Node compatibility resolve only the prefixed name.
  removeNodeProtocol: false,
});
