// A test-only provider for the idempotency and rate-limit tests: an operation that counts its executions, one that
// waits on a gate the test opens, one that fails with a fault of its own once it ran (500), and one whose upstream is
// down (502). Never part of the registry.
import { Type } from "@sinclair/typebox";
import { GatewayError } from "../../core/errors.ts";
import { platformProvider } from "../../providers/platform/manifest.ts";
import { StrictObject } from "../../providers/schemas.ts";
import { defineOperation, defineProvider, type ProviderDefinition } from "../../providers/types.ts";

export interface Testkit {
  providers: readonly ProviderDefinition[];
  /** Executions per operation id. */
  executions: Map<string, number>;
  /** Resolves once a `gate` call is running; `open()` lets every waiting call finish. */
  gate: { entered: Promise<void>; open(): void; reset(): void };
}

export function createTestkit(): Testkit {
  const executions = new Map<string, number>();
  const count = (id: string) => {
    const next = (executions.get(id) ?? 0) + 1;
    executions.set(id, next);
    return next;
  };
  let signalEntered = () => {};
  let opened: Promise<void> = Promise.resolve();
  let open = () => {};
  const gate = {
    entered: Promise.resolve(),
    open: () => open(),
    reset() {
      gate.entered = new Promise<void>((resolve) => {
        signalEntered = resolve;
      });
      opened = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
  };
  gate.reset();

  const Echo = Type.Object({ value: Type.String(), execution: Type.Integer() }, { additionalProperties: false });
  const testkit = defineProvider({
    id: "testkit",
    title: "Testkit",
    description: "Operations for tests.",
    operations: [
      defineOperation({
        id: "counter",
        summary: "Counts its executions",
        auth: "none",
        input: StrictObject({ value: Type.String({ maxLength: 100 }) }),
        output: Echo,
        example: { input: { value: "a" }, output: { value: "a", execution: 1 } },
        handle: async (input) => ({ data: { value: input.value, execution: count("counter") } }),
      }),
      defineOperation({
        id: "gate",
        summary: "Waits until the test opens the gate",
        auth: "none",
        input: StrictObject({ value: Type.String({ maxLength: 100 }) }),
        output: Echo,
        example: { input: { value: "a" }, output: { value: "a", execution: 1 } },
        handle: async (input) => {
          const execution = count("gate");
          signalEntered();
          await opened;
          return { data: { value: input.value, execution } };
        },
      }),
      defineOperation({
        id: "crash",
        summary: "Fails with a fault of its own once it has run",
        auth: "none",
        input: StrictObject({}),
        output: Type.Object({}),
        example: { input: {}, output: {} },
        handle: async () => {
          count("crash");
          throw new Error("the testkit operation failed after running");
        },
      }),
      defineOperation({
        id: "unavailable",
        summary: "Its upstream does not answer",
        auth: "none",
        input: StrictObject({}),
        output: Type.Object({}),
        example: { input: {}, output: {} },
        handle: async () => {
          count("unavailable");
          throw new GatewayError("provider_unavailable", "The testkit upstream did not answer", {
            provider: "testkit",
          });
        },
      }),
    ],
  });
  return { providers: [platformProvider, testkit], executions, gate };
}
