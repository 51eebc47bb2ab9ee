// The load generator of bench/idempotency-and-limits, run as a child process so that the measured process's CPU time
// is the gateways' alone. Takes autocannon's options as JSON in argv[2]; prints the result as one JSON line.
import autocannon from "autocannon";

const options = JSON.parse(process.argv[2] ?? "{}") as autocannon.Options;
const result = await autocannon(options);
process.stdout.write(`${JSON.stringify(result)}\n`);
