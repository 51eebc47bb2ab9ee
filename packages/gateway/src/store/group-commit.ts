// Group commit: writes requested during one turn of the event loop reach the store as one statement — one round trip
// and one commit for all of them — since round trips and commits, not rows, bound a store's write rate. Reads of one
// turn share a statement the same way (an Idempotency-Key's repeats). A request waits at most for the sockets already
// readable in the same turn.
export function groupCommit<I, O>(write: (items: I[]) => Promise<O[]>, maxItems = 100): (item: I) => Promise<O> {
  let pending: { item: I; resolve(output: O): void; reject(error: unknown): void }[] = [];
  const flush = () => {
    const batch = pending.slice(0, maxItems);
    pending = pending.slice(maxItems);
    if (pending.length > 0) setImmediate(flush);
    write(batch.map((entry) => entry.item)).then(
      (outputs) => {
        for (const [i, entry] of batch.entries()) entry.resolve(outputs[i] as O);
      },
      (error: unknown) => {
        for (const entry of batch) entry.reject(error);
      },
    );
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (pending.length === 1) setImmediate(flush);
    });
}
