// docs/webhooks.md shows a delivery as the receiver gets it: its body must be an event the gateway can send, with
// `data.object` the reservation exactly as get_reservation answers it, since receivers copy it into their tests.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAjv } from "../../src/providers/ajv.ts";
import { Reservation } from "../../src/providers/dining/schemas.ts";
import { fieldProblems } from "../../src/providers/registry.ts";

const page = readFileSync(path.resolve(import.meta.dirname, "../../../../docs/webhooks.md"), "utf8");

/** The lines of the ```http block under "What a delivery looks like". */
const deliveryExample = (): string[] => {
  const section = page.slice(page.indexOf("## What a delivery looks like"));
  const block = /```http\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (block === undefined) throw new Error("docs/webhooks.md has no ```http delivery example");
  return block.split("\n");
};

describe("docs/webhooks.md", () => {
  it("shows a delivery whose body is a reservation.confirmed event with the whole reservation", () => {
    const lines = deliveryExample();
    const body = JSON.parse(lines.at(-1) ?? "");
    const eventIdHeader = lines
      .find((line) => line.startsWith("Gateway-Event-Id: "))
      ?.slice("Gateway-Event-Id: ".length);
    expect(Object.keys(body)).toEqual(["id", "type", "created_at", "data"]);
    expect(body.id).toMatch(/^evt_[0-9A-Za-z]{22}$/);
    expect(eventIdHeader).toBe(body.id);
    expect(body.type).toBe("reservation.confirmed");
    const validate = createAjv().compile(Reservation);
    expect(validate(body.data.object), JSON.stringify(fieldProblems(validate.errors))).toBe(true);
    expect(body.data.object.status).toBe("confirmed");
  });
});
