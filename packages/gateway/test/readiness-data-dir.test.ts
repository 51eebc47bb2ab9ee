// /readyz on the embedded store whose data directory is deleted or whose database file is replaced while the gateway
// runs: the node would write on to a file nobody can open again, lost when it stops, so it is "not ready" (the load
// balancer takes it out) and says why without naming the path; ready again once the file it opened is back in place.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestGateway, type TestGateway, testStore } from "./harness.ts";

let t: TestGateway;
beforeAll(async () => {
  if (testStore() === "sqlite") t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

const readyz = async () => {
  const response = await fetch(`${t.url}/readyz`);
  return { status: response.status, requestId: response.headers.get("x-request-id"), json: await response.json() };
};

const notReady = (requestId: string | null) => ({
  status: 500,
  requestId,
  json: {
    error: {
      code: "internal_error",
      message: "The store's database file was deleted or replaced while this node ran",
      request_id: requestId,
      retryable: false,
    },
  },
});

it.skipIf(testStore() !== "sqlite")(
  "is not ready while its data directory is gone or its database file is another one",
  async () => {
    const dataDir = t.config.dataDir;
    const file = path.join(dataDir, "gateway.db");
    expect(await readyz()).toMatchObject({ status: 200, json: { status: "ready", store: "sqlite" } });

    fs.renameSync(dataDir, `${dataDir}-moved`);
    let answer = await readyz();
    expect(answer).toEqual(notReady(answer.requestId));
    fs.renameSync(`${dataDir}-moved`, dataDir);
    expect(await readyz()).toMatchObject({ status: 200, json: { status: "ready", store: "sqlite" } });

    // The same bytes in another file (a restore over a running node) are not the file it writes to.
    const original = `${file}-original`;
    fs.renameSync(file, original);
    fs.copyFileSync(original, file);
    answer = await readyz();
    expect(answer).toEqual(notReady(answer.requestId));
    fs.renameSync(original, file);
    expect(await readyz()).toMatchObject({ status: 200, json: { status: "ready", store: "sqlite" } });
  },
);
