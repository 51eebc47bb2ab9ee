// gateway openapi: prints the OpenAPI document.
import { Command } from "commander";
import { loadConfig } from "../config.ts";
import { buildOpenApiDocument } from "../http/openapi.ts";
import { Registry } from "../providers/registry.ts";

export function openapiCommand(): Command {
  return new Command("openapi").description("Print the OpenAPI 3.1 document as JSON").action(() => {
    const document = buildOpenApiDocument(new Registry(), loadConfig().publicUrl);
    process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  });
}
