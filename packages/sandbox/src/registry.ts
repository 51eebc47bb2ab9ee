// Every sandbox upstream, by provider id. Adding a sandbox is one folder and one line here.

import { buildCatalogSandbox } from "./catalog/server.ts";
import { buildDeliverySandbox } from "./delivery/server.ts";
import { buildDiningSandbox } from "./dining/server.ts";
import { buildHomegoodsSandbox } from "./homegoods/server.ts";
import { buildOpendataSandbox } from "./opendata/server.ts";
import { buildPaymentsSandbox } from "./payments/server.ts";
import { buildRidesSandbox } from "./rides/server.ts";
import type { SandboxBuilder } from "./shared/app.ts";
import { buildShoppingSandbox } from "./shopping/server.ts";

export const sandboxBuilders = {
  catalog: buildCatalogSandbox,
  delivery: buildDeliverySandbox,
  dining: buildDiningSandbox,
  homegoods: buildHomegoodsSandbox,
  opendata: buildOpendataSandbox,
  payments: buildPaymentsSandbox,
  rides: buildRidesSandbox,
  shopping: buildShoppingSandbox,
} as const satisfies Record<string, SandboxBuilder>;
