// The gateway's version, as its package.json states it (version.unit.test.ts holds the two together): printed by
// `gateway --version` and in the start-up log line.
export const gatewayVersion = "0.1.0";
