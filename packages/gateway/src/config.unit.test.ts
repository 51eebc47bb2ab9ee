// GATEWAY_TRUST_PROXY: which proxies' X-Forwarded-For gives the client address.
import { expect, it } from "vitest";
import { loadConfig } from "./config.ts";

it.each([
  [undefined, false],
  ["", false],
  ["false", false],
  ["0", false],
  ["true", true],
  ["2", 2],
  ["127.0.0.1", ["127.0.0.1"]],
  [" 10.0.0.0/8, 192.168.1.5 ,", ["10.0.0.0/8", "192.168.1.5"]],
])("GATEWAY_TRUST_PROXY=%j reads as %j", (value, expected) => {
  const env: Record<string, string> = value === undefined ? {} : { GATEWAY_TRUST_PROXY: value };
  expect(loadConfig(env).trustProxy).toEqual(expected);
});
