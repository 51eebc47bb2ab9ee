// A real HTTP receiver for webhook tests: node:http on 127.0.0.1, recording every request with its raw body, and
// answering what the test says (200 by default).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The header names as sent, in order (raw casing). */
  rawHeaderNames: string[];
  body: string;
}

/** What to answer; `hang` answers only when the test says so (otherwise a timeout for the sender). */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | "hang";

export interface Receiver {
  url: string;
  received: Received[];
  /** TCP connections accepted, requests or not. */
  connections: number;
  answer: (request: Received) => Answer;
  /** Resolves once `count` requests arrived; fails after the deadline. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  /** Answers the requests left hanging so far with this status. */
  answerHanging(status: number): void;
  close(): Promise<void>;
}

export async function startReceiver(
  answer: Receiver["answer"] = () => ({ status: 200, body: "ok" }),
): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const receiver = { answer } as Receiver;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const entry: Received = {
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        rawHeaderNames: request.rawHeaders.filter((_, index) => index % 2 === 0),
        body: Buffer.concat(chunks).toString("utf8"),
      };
      received.push(entry);
      const reply = receiver.answer(entry);
      if (reply === "hang") {
        hanging.add(response);
        return;
      }
      response.writeHead(reply.status, reply.headers ?? {});
      response.end(reply.body ?? "");
    });
  });
  receiver.connections = 0;
  server.on("connection", () => {
    receiver.connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks/gateway`,
    received,
    async waitFor(count: number, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} requests, got ${received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return received;
    },
    answerHanging(status: number) {
      for (const response of hanging) response.writeHead(status).end();
      hanging.clear();
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
