// A PostgreSQL URL that leads nowhere: the store's first use names the database it tried, never its password.
import { expect, it } from "vitest";
import { freePort } from "../../test/harness.ts";
import { openStore } from "./database.ts";

it("names the unreachable database, without the URL's user or password", async () => {
  const port = await freePort();
  const store = openStore({ databaseUrl: `postgres://gateway:s3cret-pw@127.0.0.1:${port}/gw`, dataDir: "unused" });
  try {
    const error = (await store.migrate().catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(
      `Could not use PostgreSQL at 127.0.0.1:${port}/gw (GATEWAY_DATABASE_URL): connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect(error.message).not.toContain("s3cret");
  } finally {
    await store.close();
  }
});
