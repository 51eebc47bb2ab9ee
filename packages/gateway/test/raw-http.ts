// Raw bytes to a server and everything it answers, until it closes the connection: for what fetch cannot send
// (repeated headers, no Host, pipelined requests, a body that stops arriving).
import net from "node:net";

export function rawExchange(url: string, bytes: string): Promise<string> {
  const { port, hostname } = new URL(url);
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      text += chunk;
    });
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
  });
}
