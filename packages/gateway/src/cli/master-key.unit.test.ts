// What `gateway master-key reseal` prints: every count reads as a count of none, of one and of many.
import { expect, it } from "vitest";
import type { ResealReport } from "../core/crypto/reseal.ts";
import { resealSummary } from "./master-key.ts";

const recorded =
  "The store now records GATEWAY_MASTER_KEY's check value: remove GATEWAY_MASTER_KEY_PREVIOUS from every node.";
const kept = "Keep GATEWAY_MASTER_KEY_PREVIOUS: the store still records a previous key's check value.";

function report(resealed: [number, number, number], current: number, unopenable = 0, remaining = 0): ResealReport {
  const [webhook_secrets, connections, connect_sessions] = resealed;
  return {
    resealed: { webhook_secrets, connections, connect_sessions },
    current,
    unopenable,
    remaining,
    checkRecorded: unopenable + remaining === 0,
  };
}

it("counts none, one and many of each in the first line", () => {
  expect(resealSummary(report([0, 0, 0], 0)).split("\n")).toEqual([
    "Re-sealed 0 secrets under GATEWAY_MASTER_KEY (0 webhook secrets, 0 provider tokens, 0 connect-session " +
      "verifiers); 0 were sealed under it already.",
    recorded,
  ]);
  expect(resealSummary(report([1, 0, 0], 1)).split("\n")).toEqual([
    "Re-sealed 1 secret under GATEWAY_MASTER_KEY (1 webhook secret, 0 provider tokens, 0 connect-session " +
      "verifiers); 1 was sealed under it already.",
    recorded,
  ]);
  expect(resealSummary(report([0, 1, 0], 0)).split("\n")[0]).toBe(
    "Re-sealed 1 secret under GATEWAY_MASTER_KEY (0 webhook secrets, 1 provider token, 0 connect-session " +
      "verifiers); 0 were sealed under it already.",
  );
  expect(resealSummary(report([0, 0, 1], 2)).split("\n")[0]).toBe(
    "Re-sealed 1 secret under GATEWAY_MASTER_KEY (0 webhook secrets, 0 provider tokens, 1 connect-session " +
      "verifier); 2 were sealed under it already.",
  );
  expect(resealSummary(report([2, 3, 4], 5)).split("\n")[0]).toBe(
    "Re-sealed 9 secrets under GATEWAY_MASTER_KEY (2 webhook secrets, 3 provider tokens, 4 connect-session " +
      "verifiers); 5 were sealed under it already.",
  );
});

it("counts one and many of the values left unopened and still to re-seal", () => {
  expect(
    resealSummary(report([0, 0, 0], 0, 1, 1))
      .split("\n")
      .slice(1),
  ).toEqual([
    "1 sealed value opens under none of the configured keys: it was left as it is. " +
      "Add the key it was sealed with to GATEWAY_MASTER_KEY_PREVIOUS and run this again.",
    "1 value changed under each attempt and is still to re-seal: run this again.",
    kept,
  ]);
  expect(
    resealSummary(report([0, 0, 0], 0, 2, 3))
      .split("\n")
      .slice(1),
  ).toEqual([
    "2 sealed values open under none of the configured keys: they were left as they are. " +
      "Add the key they were sealed with to GATEWAY_MASTER_KEY_PREVIOUS and run this again.",
    "3 values changed under each attempt and are still to re-seal: run this again.",
    kept,
  ]);
});
