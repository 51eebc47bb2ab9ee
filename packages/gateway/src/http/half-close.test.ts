// GATEWAY_ANSWER_HALF_CLOSED: a client that half-closes its connection once its requests are sent (a TCP FIN after
// them, as `nc -q`, some proxies and some clients do) is answered every request it sent whole, each run once, and the
// connection is then closed; what it sent incompletely is not run, and the connection is closed all the same. By
// default the FIN ends the connection, as from a client that left.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../test/harness.ts";
import { captureLog } from "../../test/log-capture.ts";
import { rawExchange } from "../../test/raw-http.ts";
import { armFault } from "../../test/sandbox-faults.ts";

let t: TestGateway;
let byDefault: TestGateway;
const log = captureLog();
const defaultLog = captureLog();
beforeAll(async () => {
  t = await startTestGateway({
    env: { GATEWAY_ANSWER_HALF_CLOSED: "1" },
    logger: { level: "info", stream: log.stream },
  });
  byDefault = await startTestGateway({ logger: { level: "info", stream: defaultLog.stream } });
});
afterAll(async () => {
  await t?.close();
  await byDefault?.close();
});

/** A create_api_key request naming the key `name`: a side effect that shows whether, and how often, it ran. */
function createKey(name: string, gateway = t): string {
  const body = JSON.stringify({ name, scopes: ["opendata"] });
  return (
    "POST /v1/platform/create_api_key HTTP/1.1\r\nHost: x\r\n" +
    `Authorization: Bearer ${gateway.key}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

const siteMetadata = (gateway = t) =>
  `POST /v1/catalog/site_metadata HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gateway.key}\r\n` +
  "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";

/** The next `count` site_metadata requests wait 500 ms for their upstream: what follows them arrives meanwhile. */
async function slowSiteMetadata(count: number, gateway = t): Promise<void> {
  await armFault(gateway.gateway.upstreamUrls.catalog, { delay_ms: 500, count, path_prefix: "/api/v1/site" });
}

async function keyNames(gateway = t): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const response = await gateway.call("platform", "list_api_keys", { limit: 100, ...(cursor && { cursor }) });
    const json = (await response.json()) as {
      data: { api_keys: { name: string }[] };
      pagination: { next_cursor: string | null };
    };
    names.push(...json.data.api_keys.map((key) => key.name));
    cursor = json.pagination.next_cursor ?? undefined;
  } while (cursor);
  return names;
}

/** Writes `bytes`, half-closes the connection, and reads everything answered until the gateway closes it. */
const sendThenHalfClose = (bytes: string, gateway = t) => rawExchange(gateway.url, bytes, { halfClose: true });

const statusesOf = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
/** The statuses and `Connection` headers of the answers read. */
const answersOf = (text: string) =>
  [...text.matchAll(/HTTP\/1\.1 (\d+)[\s\S]*?^connection: (\S+)/gim)].map((m) => [Number(m[1]), m[2]]);
const requestIdsOf = (text: string) => [...text.matchAll(/^x-request-id: (\S+)/gim)].map((m) => m[1]);
const loggedStatuses = (requestIds: (string | undefined)[]) =>
  log
    .lines()
    .filter((line) => line.msg === "request" && requestIds.includes(line.request_id as string))
    .map((line) => line.status);

describe("a client that half-closes after its requests", () => {
  it("gets an answer to every request it sent, each run once, and then the connection closes", async () => {
    const connections = 10;
    const perConnection = 3;
    const names = (c: number) => Array.from({ length: perConnection }, (_, r) => `half-closed ${c}.${r}`);
    const answers = await Promise.all(
      Array.from({ length: connections }, (_, c) =>
        sendThenHalfClose(
          names(c)
            .map((name) => createKey(name))
            .join(""),
        ),
      ),
    );
    for (const [c, answer] of answers.entries()) {
      expect(statusesOf(answer)).toEqual([200, 200, 200]);
      const bodies = answer.split("\r\n\r\n").slice(1);
      for (const [r, name] of names(c).entries()) expect(bodies[r]).toContain(`"name":"${name}"`);
    }
    const created = (await keyNames()).filter((name) => name.startsWith("half-closed "));
    expect(created.sort()).toEqual(
      Array.from({ length: connections }, (_, c) => names(c))
        .flat()
        .sort(),
    );
    // Logged as answered, none as a client that went away.
    const ids = answers.flatMap(requestIdsOf);
    expect(ids).toHaveLength(connections * perConnection);
    await expect.poll(() => loggedStatuses(ids).length).toBe(connections * perConnection);
    expect(new Set(loggedStatuses(ids))).toEqual(new Set([200]));
  });

  it("gets every answer when it half-closes while the first is under way", async () => {
    const connections = 5;
    await slowSiteMetadata(connections);
    const names = (c: number) => [`half-closed behind a slow one ${c}.0`, `half-closed behind a slow one ${c}.1`];
    const answers = await Promise.all(
      Array.from({ length: connections }, (_, c) =>
        sendThenHalfClose(
          siteMetadata() +
            names(c)
              .map((name) => createKey(name))
              .join(""),
        ),
      ),
    );
    for (const [c, answer] of answers.entries()) {
      expect(statusesOf(answer)).toEqual([200, 200, 200]);
      const bodies = answer.split("\r\n\r\n").slice(1);
      for (const [r, name] of names(c).entries()) expect(bodies[r + 1]).toContain(`"name":"${name}"`);
    }
    const created = (await keyNames()).filter((name) => name.startsWith("half-closed behind a slow one"));
    expect(created.sort()).toEqual(
      Array.from({ length: connections }, (_, c) => names(c))
        .flat()
        .sort(),
    );
  });

  it("is answered after the answers under way when it half-closes while they are", async () => {
    const { port, hostname } = new URL(t.url);
    const socket = net.connect(Number(port), hostname);
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      text += chunk;
    });
    const closed = new Promise((resolve) => socket.once("close", resolve));
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(createKey("half-closed later, first"));
    await expect.poll(() => statusesOf(text)).toEqual([200]);
    socket.write(createKey("half-closed later, second"));
    socket.end();
    await closed;
    expect(statusesOf(text)).toEqual([200, 200]);
    const names = await keyNames();
    expect(names.filter((name) => name.startsWith("half-closed later"))).toEqual(
      expect.arrayContaining(["half-closed later, first", "half-closed later, second"]),
    );
    expect(names.filter((name) => name.startsWith("half-closed later"))).toHaveLength(2);
  });

  it("closes the connection once the answers are written, though the client reads none of them", async () => {
    const { port, hostname } = new URL(t.url);
    const accepted = new Promise<net.Socket>((resolve) => t.gateway.app.server.once("connection", resolve));
    const socket = net.connect(Number(port), hostname);
    socket.pause();
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.end(createKey("half-closed, never reading 1") + createKey("half-closed, never reading 2"));
    const serverSide = await accepted;
    await new Promise((resolve) => serverSide.once("close", resolve));
    socket.destroy();
    expect((await keyNames()).filter((name) => name.startsWith("half-closed, never reading")).sort()).toEqual([
      "half-closed, never reading 1",
      "half-closed, never reading 2",
    ]);
  });

  it("closes a connection that half-closes with nothing asked, answering nothing", async () => {
    expect(await sendThenHalfClose("")).toBe("");
  });

  it("does not run a request whose body stopped short, and closes the connection", async () => {
    const whole = createKey("half-closed short body");
    const answer = await sendThenHalfClose(whole.slice(0, -5));
    expect(statusesOf(answer)).toEqual([400]);
    expect(answer).toContain('"message":"The request is not valid HTTP/1.1"');
    expect(await keyNames()).not.toContain("half-closed short body");
    await expect.poll(() => loggedStatuses(requestIdsOf(answer))).toEqual([499]);
  });

  it("refuses a request whose head stopped short, and closes the connection", async () => {
    const answer = await sendThenHalfClose("POST /v1/platform/create_api_key HTTP/1.1\r\nHost: x\r\n");
    expect(answersOf(answer)).toEqual([[400, "close"]]);
    expect(answer).toContain('"message":"The request is not valid HTTP/1.1"');
  });

  it("answers a request under way before one that stopped short, then closes, running nothing after it", async () => {
    // The short request and the end arrive while site_metadata waits for its upstream.
    await slowSiteMetadata(1);
    const answer = await sendThenHalfClose(siteMetadata() + createKey("half-closed short one").slice(0, -5));
    expect(answersOf(answer)).toEqual([[200, "close"]]);
    expect(await keyNames()).not.toContain("half-closed short one");
  });

  it("runs nothing behind an answer that closes the connection", async () => {
    const refused =
      "POST /v1/catalog/search_products HTTP/1.1\r\nHost: x\r\n" +
      `Authorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: 3\r\n\r\n{x}`;
    const answer = await sendThenHalfClose(refused + createKey("half-closed behind a refusal"));
    expect(answersOf(answer)).toEqual([[400, "close"]]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await keyNames()).not.toContain("half-closed behind a refusal");
  });
});

describe("a client that closes outright, with the switch on", () => {
  // Its FIN is all a node sees: the same as a half-close's.
  it("has its request run to its end, logged with the status of the answer it never read", async () => {
    await slowSiteMetadata(1);
    const before = log.lines().length;
    // Sent whole, and the connection closed 200 ms later with nothing unread: a FIN, as a client's own timeout sends.
    const { port, hostname } = new URL(t.url);
    const socket = net.connect(Number(port), hostname, () => socket.write(siteMetadata()));
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    await expect
      .poll(
        () =>
          log
            .lines()
            .slice(before)
            .filter((line) => line.path === "/v1/catalog/site_metadata"),
        {
          timeout: 3_000,
        },
      )
      .toHaveLength(1);
    const [line] = log
      .lines()
      .slice(before)
      .filter((line) => line.path === "/v1/catalog/site_metadata");
    expect(line).toMatchObject({ status: 200, operation: "site_metadata" });
  });
});

describe("by default, a client's FIN", () => {
  it("ends the connection: the requests not answered yet are logged 499, and those not begun never run", async () => {
    await slowSiteMetadata(1, byDefault);
    const answer = await sendThenHalfClose(
      siteMetadata(byDefault) + createKey("half-closed by default", byDefault),
      byDefault,
    );
    expect(answer).toBe("");
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await keyNames(byDefault)).not.toContain("half-closed by default");
    const statuses = defaultLog
      .lines()
      .filter((line) => line.msg === "request" && line.path !== "/v1/platform/list_api_keys")
      .map((line) => [line.path, line.status]);
    expect(statuses).toEqual([
      ["/v1/catalog/site_metadata", 499],
      ["/v1/platform/create_api_key", 499],
    ]);
  });
});
