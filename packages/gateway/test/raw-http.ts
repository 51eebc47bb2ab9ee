// Raw bytes to a server and everything it answers, until it closes the connection: for what fetch cannot send
// (repeated headers, no Host, pipelined requests, a body that stops arriving, a half-close after the requests).
import net from "node:net";

/** Writes `bytes` (then half-closes the connection, with `halfClose`) and reads everything answered until it closes. */
export function rawExchange(url: string, bytes: string, { halfClose = false } = {}): Promise<string> {
  const { port, hostname } = new URL(url);
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => (halfClose ? socket.end(bytes) : socket.write(bytes)));
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      text += chunk;
    });
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
  });
}
