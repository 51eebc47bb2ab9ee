// The object tick-shapes.ts holds must be one of process.nextTick's tick objects: holding anything else (on a Node.js
// whose async resource inside a tick is not the tick) would keep no shape alive. Its effect is counted by
// bench/operations-instructions.
import { expect, it } from "vitest";
import { heldTick } from "./tick-shapes.ts";

it("holds a tick object of process.nextTick, with the two computed keys whose shapes it keeps", async () => {
  await new Promise((resolve) => process.nextTick(resolve));
  const keys = Reflect.ownKeys(heldTick.object ?? {}).map(String);
  expect(keys).toEqual(
    expect.arrayContaining(["Symbol(async_id_symbol)", "Symbol(trigger_async_id_symbol)", "callback", "args"]),
  );
  expect(typeof (heldTick.object as { callback: unknown }).callback).toBe("function");
});
