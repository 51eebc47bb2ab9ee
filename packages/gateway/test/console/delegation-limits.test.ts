// Every delegation token of one console user counts against one rate limit, the user's: minting more tokens gives no
// more requests. Another user's tokens have a limit of their own.
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectedError, type TestGateway } from "../harness.ts";
import { ConsoleClient, createUser, startConsoleGateway } from "./console-client.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startConsoleGateway({ env: { GATEWAY_RATE_LIMIT_PER_MINUTE: "1", GATEWAY_RATE_LIMIT_BURST: "3" } });
  await createUser(t, "ada@example.com");
  await createUser(t, "grace@example.com");
});
afterAll(() => t?.close());

const tokensOf = async (email: string, count: number) => {
  const client = new ConsoleClient(t.url);
  await client.signIn(email);
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const minted = await client.request("POST", "/console/api/delegation-tokens", {});
    tokens.push(((await minted.json()) as any).data.token);
  }
  return tokens;
};

const say = (token: string) =>
  fetch(`${t.url}/v1/echo/say`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ text: "hi" }),
  });

it("counts all of a user's tokens against the user's one limit", async () => {
  const [first, second, third] = (await tokensOf("ada@example.com", 3)) as [string, string, string];
  const answers = [];
  for (const token of [first, second, third, first]) answers.push(await say(token));
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
  expect(answers.map((answer) => answer.headers.get("ratelimit"))).toEqual([
    '"default";r=2;t=60',
    '"default";r=1;t=120',
    '"default";r=0;t=180',
    '"default";r=0;t=60',
  ]);
  const refused = answers[3] as Response;
  expect(((await refused.json()) as any).error).toMatchObject(expectedError("rate_limited"));
  const [other] = (await tokensOf("grace@example.com", 1)) as [string];
  expect((await say(other)).status).toBe(200);
});
