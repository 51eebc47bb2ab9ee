// A provider for this benchmark only: one read operation that calls its upstream (a node:http stub in another
// process, upstream.ts) the way a real adapter does — the typical request an Idempotency-Key is added to.
import { Type } from "@sinclair/typebox";
import { StrictObject } from "../../packages/gateway/src/providers/schemas.ts";
import { defineOperation, defineProvider } from "../../packages/gateway/src/providers/types.ts";

const Item = Type.Object(
  { id: Type.String(), title: Type.String(), price: Type.Object({ amount: Type.Integer(), currency: Type.String() }) },
  { additionalProperties: false },
);

export const benchProvider = defineProvider({
  id: "benchkit",
  title: "Benchmark",
  description: "An upstream call, for benchmarks.",
  // Never started: the benchmark configures GATEWAY_UPSTREAM_BENCHKIT_URL.
  sandbox: "benchkit",
  operations: [
    defineOperation({
      id: "fetch_item",
      summary: "Fetch an item from the upstream",
      auth: "none",
      input: StrictObject({ item_id: Type.String({ maxLength: 64 }) }),
      output: Item,
      example: {
        input: { item_id: "42" },
        output: { id: "42", title: "Cast-iron kettle", price: { amount: 12800, currency: "JPY" } },
      },
      handle: async (input, ctx) => ({
        data: await ctx.upstream.request<{ id: string; title: string; price: { amount: number; currency: string } }>({
          path: `/items/${encodeURIComponent(input.item_id)}`,
        }),
      }),
    }),
  ],
});
