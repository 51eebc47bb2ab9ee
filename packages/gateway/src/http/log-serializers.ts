// How errors are written to the log: pino's standard fields, without what a client library attaches of the request
// that failed. ioredis puts the failed command on its errors (`command: {name, args}`), and a connection's HELLO or
// AUTH command carries the Redis password: a Redis that refuses the password (rotated, mistyped) would put it in the
// log line that says Redis is unavailable.
import { stdSerializers } from "pino";

type SerializedError = ReturnType<typeof stdSerializers.err>;

/** Properties a library puts on its errors that may hold credentials or a request's values; never logged. */
const unloggedProperties = ["command", "args", "previousErrors"] as const;

function withoutRequestValues(serialized: SerializedError): SerializedError {
  const copy: SerializedError = { ...serialized };
  for (const name of unloggedProperties) delete copy[name];
  // pino writes a cause into the message and stack only; an AggregateError's errors as objects of their own.
  if (Array.isArray(copy.aggregateErrors)) copy.aggregateErrors = copy.aggregateErrors.map(withoutRequestValues);
  return copy;
}

export const loggedError = (error: Error): SerializedError => withoutRequestValues(stdSerializers.err(error));

/** For every logger the gateway makes: `err` fields go through loggedError. */
export const logSerializers = { err: loggedError };
