// A real HTTP proxy in front of a gateway that misbehaves on cue, for the failures a gateway cannot produce itself:
// an answer lost on the way back (the operation ran, the client sees a broken connection) and a request left hanging.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** What the proxy does with one request: pass it on, pass it on and then drop the answer, or never answer. */
export type ProxyAction = "forward" | "lose-answer" | "hang";

export interface FaultyProxy {
  url: string;
  /** Actions for the next requests, in order; once used up, requests are forwarded. */
  script(...actions: ProxyAction[]): void;
  /** Resolves when a request reaches a `hang` action. */
  hanging(): Promise<void>;
  close(): Promise<void>;
}

const hopByHop = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host"]);

export async function startFaultyProxy(target: string): Promise<FaultyProxy> {
  let actions: ProxyAction[] = [];
  let hangListeners: (() => void)[] = [];
  const server = createServer(async (req, res) => {
    const action = actions.shift() ?? "forward";
    const body = await readBody(req);
    if (action === "hang") {
      for (const notify of hangListeners.splice(0)) notify();
      return; // the socket stays open until the client gives up or the proxy closes
    }
    const answer = await fetch(`${target}${req.url}`, {
      method: req.method ?? "GET",
      headers: Object.fromEntries(
        Object.entries(req.headers).filter(([name, value]) => !hopByHop.has(name) && typeof value === "string"),
      ) as Record<string, string>,
      ...(body.length > 0 && { body: new Uint8Array(body) }),
    });
    const text = await answer.text();
    if (action === "lose-answer") {
      req.socket.destroy();
      return;
    }
    const headers: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!hopByHop.has(name)) headers[name] = value;
    });
    res.writeHead(answer.status, headers).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    script(...next) {
      actions = next;
    },
    hanging: () => new Promise((resolve) => hangListeners.push(resolve)),
    async close() {
      hangListeners = [];
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
