// A sandbox's fault injection (`POST /_sandbox/faults`, packages/sandbox/src/shared/faults.ts), armed from a test.

/** Arms a sandbox's fault injection: the next matching requests (`count`, by path prefix) fail or wait. */
export async function armFault(
  sandboxUrl: string | undefined,
  rule: { status?: number; delay_ms?: number; path_prefix: string; count?: number },
): Promise<void> {
  if (!sandboxUrl) throw new Error("arming a fault: the gateway runs no sandbox for this provider");
  const response = await fetch(`${sandboxUrl}/_sandbox/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(rule),
  });
  if (response.status !== 201) throw new Error(`arming a fault: ${response.status} ${await response.text()}`);
}
