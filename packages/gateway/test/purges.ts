// What the batched purges' tests watch: each DELETE's table and how many rows it took, in order, and how many times
// the event loop turned while a purge ran (a batch at a time lets it turn in between); and a store refusing a table's
// deletes.
import { DeleteQueryNode, type KyselyPlugin, TableNode } from "kysely";

/** A plugin (`db.withPlugin(recorder.plugin)`) that records `[table, rows deleted]` for every DELETE it runs. */
export function deleteRecorder(): { plugin: KyselyPlugin; deletes: [string, number][] } {
  const tables = new Map<unknown, string>();
  const deletes: [string, number][] = [];
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      if (DeleteQueryNode.is(args.node)) {
        const from = args.node.from.froms[0];
        tables.set(args.queryId, from && TableNode.is(from) ? from.table.identifier.name : "?");
      }
      return args.node;
    },
    transformResult: async (args) => {
      const table = tables.get(args.queryId);
      if (table !== undefined) deletes.push([table, Number(args.result.numAffectedRows)]);
      return args.result;
    },
  };
  return { plugin, deletes };
}

/** A plugin that makes every DELETE from `table` fail before it reaches the store, as a store refusing it would. */
export function refuseDeletesFrom(table: string): KyselyPlugin {
  return {
    transformQuery: (args) => {
      const from = DeleteQueryNode.is(args.node) ? args.node.from.froms[0] : undefined;
      if (from && TableNode.is(from) && from.table.identifier.name === table) {
        throw new Error(`the store refused the delete from ${table}`);
      }
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
}

/** Runs `work` and counts the turns of the event loop until it ends. */
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let counting = true;
  const count = () => {
    if (!counting) return;
    turns++;
    setImmediate(count);
  };
  setImmediate(count);
  try {
    return { result: await work(), turns };
  } finally {
    counting = false;
  }
}
