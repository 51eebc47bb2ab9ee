// The send timeout's rule, on connections whose output is set by hand: what counts as the client taking some of an
// answer, and what is cut.
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { sendTimeoutWatch } from "./send-timeout.ts";

/** A connection as the watch sees it: bytes held by the socket, and the part of the write under way left to hand over. */
class FakeSocket extends EventEmitter {
  writableLength = 0;
  destroyed = false;
  _handle = { writeQueueSize: 0 };
  destroy() {
    this.destroyed = true;
    this.emit("close");
  }
}

function watched(timeoutMs = 1_000) {
  const destroyed: FakeSocket[] = [];
  const watch = sendTimeoutWatch(timeoutMs, (socket) => destroyed.push(socket as unknown as FakeSocket));
  const socket = new FakeSocket();
  watch.watch(socket as unknown as Socket);
  return { watch, socket, destroyed };
}

describe("the send timeout", () => {
  it("cuts a connection whose output has not moved for the timeout", () => {
    const { watch, socket, destroyed } = watched();
    socket.writableLength = 400_000;
    socket._handle.writeQueueSize = 300_000;
    watch.check(0);
    watch.check(999);
    expect(destroyed).toEqual([]);
    watch.check(1_000);
    expect(destroyed).toEqual([socket]);
    expect(socket.destroyed).toBe(true);
  });

  it("counts a byte handed to the kernel within one write as a move, the write itself unfinished", () => {
    const { watch, socket, destroyed } = watched();
    socket.writableLength = 400_000;
    socket._handle.writeQueueSize = 300_000;
    for (let now = 0; now <= 10_000; now += 500) {
      watch.check(now);
      socket._handle.writeQueueSize -= 1;
    }
    // The last move is seen at 10,500; none after it.
    watch.check(10_500);
    watch.check(11_499);
    expect(destroyed).toEqual([]);
    watch.check(11_500);
    expect(destroyed).toEqual([socket]);
  });

  it("counts a write finished as a move, and more output added as none", () => {
    const { watch, socket, destroyed } = watched();
    socket.writableLength = 800_000;
    watch.check(0);
    socket.writableLength = 400_000;
    watch.check(900);
    // A further answer queued behind: the client has taken nothing more.
    socket.writableLength = 900_000;
    watch.check(1_800);
    expect(destroyed).toEqual([]);
    watch.check(1_900);
    expect(destroyed).toEqual([socket]);
  });

  it("leaves alone a connection with nothing to write, however long, and starts afresh at its next answer", () => {
    const { watch, socket, destroyed } = watched();
    socket.writableLength = 400_000;
    watch.check(0);
    socket.writableLength = 0;
    watch.check(900);
    watch.check(60_000);
    socket.writableLength = 400_000;
    watch.check(60_500);
    watch.check(61_400);
    expect(destroyed).toEqual([]);
    watch.check(61_500);
    expect(destroyed).toEqual([socket]);
  });

  it("forgets a connection once closed", () => {
    const { watch, socket, destroyed } = watched();
    socket.writableLength = 400_000;
    watch.check(0);
    socket.emit("close");
    watch.check(5_000);
    expect(destroyed).toEqual([]);
  });
});
