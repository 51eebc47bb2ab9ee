// The send timeout's rule, on connections whose output is set by hand: what counts as the client taking some of an
// answer, and what is cut.
import { EventEmitter } from "node:events";
import http from "node:http";
import net, { type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { sendTimeoutWatch } from "./send-timeout.ts";

/** A connection as the watch sees it: bytes held by the socket, and the part of the write under way left to hand over. */
class FakeSocket extends EventEmitter {
  writableLength = 0;
  destroyed = false;
  _handle = { writeQueueSize: 0 };
  /** The answer being written (Node's http server sets it on the socket, and the next answer once one is written). */
  _httpMessage: object | null = null;
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

  it("counts an answer written whole as a move, though the answer behind it holds more than it did", () => {
    const { watch, socket, destroyed } = watched();
    // Two pipelined answers: the first stalls with 1,000 bytes left in the node.
    socket._httpMessage = { answer: 1 };
    socket.writableLength = 1_000;
    socket._handle.writeQueueSize = 1_000;
    watch.check(0);
    // Between two looks the client took those bytes, and the second answer went on the socket, larger.
    socket._httpMessage = { answer: 2 };
    socket.writableLength = 450_000;
    socket._handle.writeQueueSize = 300_000;
    watch.check(900);
    watch.check(1_899);
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

  it("on a real connection, counts the first of two pipelined answers taken whole as a move", async () => {
    const first = Buffer.alloc(8 << 20, 97);
    const second = Buffer.alloc(32 << 20, 98);
    const destroyed: Socket[] = [];
    const watch = sendTimeoutWatch(1_000, (socket) => destroyed.push(socket));
    let served: Socket | undefined;
    const server = http.createServer((request, response) => response.end(request.url === "/first" ? first : second));
    server.on("connection", (socket: Socket) => {
      served = socket;
      watch.watch(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const until = async (condition: () => boolean) => {
      while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const client = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
    try {
      client.pause();
      client.write("GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n");
      await until(() => (served?.writableLength ?? 0) > 0);
      const socket = served as Socket;
      const firstAnswer = (socket as Socket & { _httpMessage?: unknown })._httpMessage;
      watch.check(0);
      // The client reads the first answer whole, then stops again.
      let read = 0;
      client.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read >= first.length) client.pause();
      });
      client.resume();
      await until(() => (socket as Socket & { _httpMessage?: unknown })._httpMessage !== firstAnswer);
      // The second answer holds more than the first held when it stalled: neither count fell.
      expect(socket.writableLength).toBeGreaterThan(first.length);
      watch.check(900);
      watch.check(1_000);
      watch.check(1_899);
      expect(destroyed).toEqual([]);
    } finally {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
