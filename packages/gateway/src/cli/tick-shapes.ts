// Holds one of process.nextTick's tick objects for the life of the process, which keeps V8 on the fast way of building
// the next ones. Imported first by every process that serves requests (the `gateway` CLI, the benchmarks' servers).
//
// nextTick builds each tick as `{ [async_id_symbol]: id, [trigger_async_id_symbol]: trigger, callback, args }`. Until
// the function is optimized, V8 defines each computed key through a call into its runtime, which records in the site's
// feedback the shape the object had, holding that shape weakly. Tick objects live for a moment; when a full garbage
// collection finds none alive (start-up's collections, or an idle spell), the shapes a tick grows through die with
// them. The next tick grows new ones, the runtime finds a shape other than the one recorded, and marks the site as
// having seen many shapes, for good: from then on even the optimized nextTick defines those keys through the runtime,
// about 1,300 instructions each, on each of the dozen ticks that Node's streams and HTTP make for a request. In a
// gateway that was 30-50 k instructions a request, about a tenth of its work, in every start measured
// (docs/performance.md); in the bench's plain node:http passthrough, in some starts and not in others.
// A tick object kept alive keeps the shapes it grew through alive (each shape holds the one it grew from), so the
// recorded shape stays the one every tick is built with. It must be taken before the first full collection.
import { executionAsyncResource } from "node:async_hooks";

/** The tick object held: inside a tick's callback, the current async resource is that tick. */
export const heldTick: { object?: object } = {};

process.nextTick(() => {
  heldTick.object = executionAsyncResource();
});
