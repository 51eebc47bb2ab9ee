// gateway master-key reseal: the second step of a master-key rotation (docs/configuration.md). Seals every secret the
// store holds under a previous key (GATEWAY_MASTER_KEY_PREVIOUS) anew under GATEWAY_MASTER_KEY, then records the
// current key's check value, after which GATEWAY_MASTER_KEY_PREVIOUS can go.
import { Command } from "commander";
import { loadConfig } from "../config.ts";
import { refuseUnusableMasterKey } from "../core/crypto/master-key.ts";
import { resolveCheckedMasterKey } from "../core/crypto/master-key-check.ts";
import { type ResealReport, resealSecrets } from "../core/crypto/reseal.ts";
import { clock, print, withStore } from "./shared.ts";

export function masterKeyCommand(): Command {
  const command = new Command("master-key").description("Rotate the master key (docs/configuration.md)");
  command
    .command("reseal")
    .description(
      "Seal every stored secret that opens under GATEWAY_MASTER_KEY_PREVIOUS anew under GATEWAY_MASTER_KEY " +
        "(run it once every node has the new key)",
    )
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig();
      refuseUnusableMasterKey(config);
      await withStore(async (store) => {
        // The same check as a node's start: a re-seal with a key the store does not know would make its secrets
        // unreadable to every node.
        const keys = await resolveCheckedMasterKey(store.db, clock, config);
        const report = await resealSecrets(store.db, clock, keys);
        const { resealed } = report;
        print(
          options.json === true,
          {
            resealed: {
              webhook_secrets: resealed.webhook_secrets,
              provider_tokens: resealed.connections,
              connect_session_verifiers: resealed.connect_sessions,
            },
            already_current: report.current,
            unopenable: report.unopenable,
            remaining: report.remaining,
            check_recorded: report.checkRecorded,
          },
          resealSummary(report),
        );
        if (!report.checkRecorded) process.exitCode = 1;
      });
    });
  return command;
}

/** "1 webhook secret", "0 webhook secrets", "2 webhook secrets". */
function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What the re-seal did, in people's words: the counts read as counts of one, of none and of many. */
export function resealSummary(report: ResealReport): string {
  const { resealed } = report;
  const total = resealed.webhook_secrets + resealed.connections + resealed.connect_sessions;
  const lines = [
    `Re-sealed ${count(total, "secret", "secrets")} under GATEWAY_MASTER_KEY ` +
      `(${count(resealed.webhook_secrets, "webhook secret", "webhook secrets")}, ` +
      `${count(resealed.connections, "provider token", "provider tokens")}, ` +
      `${count(resealed.connect_sessions, "connect-session verifier", "connect-session verifiers")}); ` +
      `${report.current} ${report.current === 1 ? "was" : "were"} sealed under it already.`,
  ];
  if (report.unopenable > 0) {
    lines.push(
      report.unopenable === 1
        ? "1 sealed value opens under none of the configured keys: it was left as it is. " +
            "Add the key it was sealed with to GATEWAY_MASTER_KEY_PREVIOUS and run this again."
        : `${report.unopenable} sealed values open under none of the configured keys: they were left as they are. ` +
            "Add the key they were sealed with to GATEWAY_MASTER_KEY_PREVIOUS and run this again.",
    );
  }
  if (report.remaining > 0) {
    lines.push(
      report.remaining === 1
        ? "1 value changed under each attempt and is still to re-seal: run this again."
        : `${report.remaining} values changed under each attempt and are still to re-seal: run this again.`,
    );
  }
  lines.push(
    report.checkRecorded
      ? "The store now records GATEWAY_MASTER_KEY's check value: remove GATEWAY_MASTER_KEY_PREVIOUS from every node."
      : "Keep GATEWAY_MASTER_KEY_PREVIOUS: the store still records a previous key's check value.",
  );
  return lines.join("\n");
}
