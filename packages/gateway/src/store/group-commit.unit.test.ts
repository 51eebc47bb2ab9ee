// Group commit's batching: which writes share a statement, and that each caller gets its own answer or its batch's
// error.
import { setImmediate as nextTurn } from "node:timers/promises";
import { expect, it } from "vitest";
import { groupCommit } from "./group-commit.ts";

/** A write whose statements are answered by hand: each batch's items, and a way to answer or fail it. */
function heldWrites() {
  const batches: { items: string[]; answer(): void; fail(error: Error): void }[] = [];
  const write = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push({ items, answer: () => resolve(items.map((item) => item.toUpperCase())), fail: reject });
    });
  return { batches, write };
}

it("sends the writes of one turn as one statement and answers each caller its own result", async () => {
  const written: string[][] = [];
  const commit = groupCommit(async (items: string[]) => {
    written.push(items);
    return items.map((item) => item.toUpperCase());
  });
  const answers = await Promise.all(["a", "b", "c"].map(commit));
  expect(answers).toEqual(["A", "B", "C"]);
  expect(written).toEqual([["a", "b", "c"]]);
});

it("splits a turn's writes into statements of maxItems", async () => {
  const written: string[][] = [];
  const commit = groupCommit(async (items: string[]) => {
    written.push(items);
    return items.map((item) => item.toUpperCase());
  }, 2);
  expect(await Promise.all(["a", "b", "c", "d", "e"].map(commit))).toEqual(["A", "B", "C", "D", "E"]);
  expect(written).toEqual([["a", "b"], ["c", "d"], ["e"]]);
});

it("sends a later turn's writes as a statement of their own, without waiting for the one on its way", async () => {
  const { batches, write } = heldWrites();
  const commit = groupCommit(write);
  const first = [commit("a"), commit("b")];
  await nextTurn();
  const second = commit("c");
  await nextTurn();
  expect(batches.map((b) => b.items)).toEqual([["a", "b"], ["c"]]);

  // Answered out of order: each caller still gets its own result.
  batches[1]?.answer();
  batches[0]?.answer();
  expect([...(await Promise.all(first)), await second]).toEqual(["A", "B", "C"]);
});

it("fails only the writes of a failed statement", async () => {
  const { batches, write } = heldWrites();
  const commit = groupCommit(write);
  const failed = [commit("a"), commit("b")].map((answer) => answer.catch((error: Error) => error.message));
  await nextTurn();
  const later = commit("c");
  await nextTurn();
  batches[0]?.fail(new Error("the store refused"));
  batches[1]?.answer();
  expect(await Promise.all(failed)).toEqual(["the store refused", "the store refused"]);
  expect(await later).toBe("C");
});
