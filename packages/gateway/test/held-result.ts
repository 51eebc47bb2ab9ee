// A statement's answer held back, to run something else while a read is in flight (a revocation, a rotation) and see
// what the reader then does with the answer it began before.
import type { KyselyPlugin, QueryResult } from "kysely";

/**
 * A plugin (`db.withPlugin(hold.plugin)`) that holds the answer of the first statement `matches` accepts: `held`
 * resolves once it is held, and `release` lets it (and every later one) through.
 */
export function holdFirstResult(matches: (result: QueryResult<unknown>) => boolean = () => true) {
  let state: "waiting" | "held" | "released" = "waiting";
  let entered: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    entered = resolve;
  });
  let letGo: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      if (state === "waiting" && matches(args.result)) {
        state = "held";
        entered();
        await released;
      }
      return args.result;
    },
  };
  return {
    plugin,
    held,
    release: () => {
      state = "released";
      letGo();
    },
  };
}
