// `gateway openapi` as a shell pipeline uses it: piped into a reader that stops after the first lines (`| head`).
import { spawn } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";

it("ends quietly with 0 when its reader closes the pipe early, without a stack trace", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", "packages/gateway/src/cli/main.ts", "openapi"], {
    cwd: path.resolve(import.meta.dirname, "../../.."),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let first = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  // The first chunk is read, then the pipe's read end is closed, as `head -c 100` does: the rest of the document
  // (far more than a pipe's buffer) meets EPIPE.
  child.stdout.setEncoding("utf8").once("data", (chunk: string) => {
    first = chunk;
    child.stdout.destroy();
  });
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  expect(first.startsWith('{\n  "openapi": "3.1.0"')).toBe(true);
  expect(stderr).toBe("");
  expect(code).toBe(0);
});
