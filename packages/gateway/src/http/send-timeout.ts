// The send timeout (GATEWAY_SEND_TIMEOUT_MS): a connection whose answer has bytes the client has taken none of for the
// timeout (it reads too slowly, or not at all) is destroyed, so that no client holds its socket, and the answer in
// the node's memory, for as long as it likes.
//
// Only output waiting in the node counts: an idle keep-alive connection (the keep-alive timeout's), a request still
// being worked on or waiting for its Idempotency-Key (nothing written yet), and an answer the kernel has taken whole
// are not concerned. Progress is any byte of it leaving the node for the kernel, within one write too: Fastify writes
// an answer at once, and Node's own socket timeout, which sees only whole writes, would cut a client that reads a
// large answer steadily but slowly. The kernel takes bytes again once its buffer for the connection is half free,
// which is what the time between two moves measures, as nginx's send_timeout does. The last byte of an answer taken
// is a move too, when the answer pipelined behind it then goes on the socket holding more than the first did.
import type { Socket } from "node:net";

/** Destroys the connections whose output has not moved for `timeoutMs`, telling `onDestroy` first. */
export interface SendTimeoutWatch {
  /** Watches a connection until it closes. */
  watch(socket: Socket): void;
  /** Looks at every connection watched: at `now` (performance.now()), the start's ticks call it. */
  check(now: number): void;
  /** Looks every quarter of the timeout, at most every second (a connection is cut up to that much late). */
  start(): void;
  stop(): void;
}

interface Output {
  /** Bytes the socket holds: those buffered, and the write under way until the kernel has taken all of it. */
  length: number;
  /** The part of the write under way that libuv has not handed to the kernel yet: it falls as the client reads. */
  queued: number;
  /**
   * The answer being written: Node's http server puts the next one on the socket once the kernel has taken the last
   * byte of this one. The next may hold more than this one did, so that neither count falls: the change is the move.
   */
  answer: unknown;
}

type StreamSocket = Socket & { _handle?: { writeQueueSize?: number } | null; _httpMessage?: unknown };

const outputOf = (socket: Socket): Output => ({
  length: socket.writableLength,
  queued: (socket as StreamSocket)._handle?.writeQueueSize ?? 0,
  answer: (socket as StreamSocket)._httpMessage,
});

export function sendTimeoutWatch(
  timeoutMs: number,
  onDestroy: (socket: Socket, timeoutMs: number) => void,
): SendTimeoutWatch {
  const connections = new Set<Socket>();
  /** Per connection with output waiting: since when it has not moved, and how it stood then. */
  const stalls = new WeakMap<Socket, Output & { since: number }>();
  let sweep: NodeJS.Timeout | undefined;
  const check = (now: number) => {
    for (const socket of connections) {
      const output = outputOf(socket);
      const stall = stalls.get(socket);
      if (output.length === 0 && output.queued === 0) {
        if (stall !== undefined) stalls.delete(socket);
        continue;
      }
      // Output added (more of the answer) is not a move; output gone, from the buffer or from the write, is, and so is
      // an answer written whole, whatever the next one holds.
      if (
        stall === undefined ||
        output.length < stall.length ||
        output.queued < stall.queued ||
        output.answer !== stall.answer
      ) {
        stalls.set(socket, { ...output, since: now });
        continue;
      }
      stall.length = output.length;
      stall.queued = output.queued;
      if (now - stall.since < timeoutMs || socket.destroyed) continue;
      stalls.delete(socket);
      onDestroy(socket, timeoutMs);
      socket.destroy();
    }
  };
  return {
    watch(socket) {
      connections.add(socket);
      socket.once("close", () => connections.delete(socket));
    },
    check,
    start() {
      const every = Math.max(10, Math.min(1_000, Math.floor(timeoutMs / 4)));
      sweep ??= setInterval(() => check(performance.now()), every).unref();
    },
    stop() {
      clearInterval(sweep);
      sweep = undefined;
    },
  };
}
