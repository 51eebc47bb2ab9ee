// A provider of the console tests' own, with no upstream: `say` (mode none) answers who ran it, `whoami`
// (mode credentials) answers the connection it ran against. Tests add it to the registry's providers.
import { Type } from "@sinclair/typebox";
import { StrictObject } from "../../src/providers/schemas.ts";
import { defineOperation, defineProvider } from "../../src/providers/types.ts";

export const echoProvider = defineProvider({
  id: "echo",
  title: "Echo",
  description: "Answers what it is given (console tests).",
  operations: [
    defineOperation({
      id: "say",
      summary: "Repeat a text",
      auth: "none",
      readOnly: true,
      input: StrictObject({ text: Type.String({ minLength: 1, maxLength: 200 }) }),
      output: Type.Object({ text: Type.String(), account_id: Type.String() }, { additionalProperties: false }),
      example: { input: { text: "こんにちは" }, output: { text: "こんにちは", account_id: "default" } },
      async handle(input, ctx) {
        return { data: { text: input.text, account_id: ctx.accountId } };
      },
    }),
    defineOperation({
      id: "whoami",
      summary: "The connection a call runs against",
      auth: "credentials",
      readOnly: true,
      input: StrictObject({}),
      output: Type.Object({ external_ref: Type.String() }, { additionalProperties: false }),
      example: { input: {}, output: { external_ref: "user_8842" } },
      async handle(_input, ctx) {
        return { data: { external_ref: ctx.connection?.externalRef ?? "" } };
      },
    }),
  ],
});
