// Header names as they arrive raw — Node's `rawHeaders` for requests, undici's dispatch handler for answers, as bytes —
// in whatever case the sender wrote. One check for every lookup of a name among them: a name whose length is not the
// one sought is never decoded or lower-cased (`String()` of each raw name of an upstream answer had cost about 2,000
// instructions, 10,000 a call: callgrind, bench/operations-instructions).
/** Whether a raw header name is `lowerName`, given in lower case, written in any case. */
export function isHeaderName(raw: string | Buffer, lowerName: string): boolean {
  if (raw.length !== lowerName.length) return false;
  return (typeof raw === "string" ? raw : raw.toString("latin1")).toLowerCase() === lowerName;
}
