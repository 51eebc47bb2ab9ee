// Writes packages/sdk/src/operations.generated.ts from the gateway's operation catalogue (the registry, imported from
// the gateway's sources: only this script knows the server, the SDK itself imports nothing of it).
// Usage: npm run generate -w @provider-gateway/sdk            writes the file
//        npm run generate -w @provider-gateway/sdk -- --check  exits 1 when the committed file is stale
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { catalogue } from "../../gateway/src/http/catalogue.ts";
import { Registry } from "../../gateway/src/providers/registry.ts";
import { type GeneratorInput, renderOperations } from "./codegen/render-operations.ts";

export const generatedFile = fileURLToPath(new URL("../src/operations.generated.ts", import.meta.url));

/** The catalogue exactly as GET /v1/operations serves it, plus the named schemas its `$ref`s point to. */
export function catalogueInput(registry: Registry = new Registry()): GeneratorInput {
  const served = JSON.parse(JSON.stringify(catalogue(registry))) as GeneratorInput;
  return { providers: served.providers, namedSchemas: JSON.parse(JSON.stringify(registry.namedSchemas)) };
}

export function generateOperationsSource(registry?: Registry): string {
  return renderOperations(catalogueInput(registry));
}

function main(): void {
  const source = generateOperationsSource();
  const current = readFileSync(generatedFile, { encoding: "utf8", flag: "a+" });
  if (process.argv.includes("--check")) {
    if (current !== source) {
      console.error(`${generatedFile} is stale: run npm run generate -w @provider-gateway/sdk`);
      process.exit(1);
    }
    console.log(`${generatedFile} is up to date`);
    return;
  }
  if (current === source) {
    console.log(`${generatedFile} is up to date`);
    return;
  }
  writeFileSync(generatedFile, source);
  const count = catalogueInput().providers.reduce((sum, p) => sum + p.operations.length, 0);
  console.log(`wrote ${generatedFile} (${count} operations)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
