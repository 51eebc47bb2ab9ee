// One upstream call through undici's dispatch API: the status, the Retry-After header and the whole body as text.
// Cheaper per call than `request()`, which wraps every answer in a Readable stream that the client reads at once
// anyway; errors (refused, timeouts) are undici's own, as with `request()`.
import type { Dispatcher } from "undici";

export interface UpstreamAnswer {
  statusCode: number;
  retryAfter: string | undefined;
  text: string;
}

export function callUpstream(
  dispatcher: Dispatcher,
  options: { method: string; path: string; headers: Record<string, string>; body: string | null },
): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    let retryAfter: string | undefined;
    const chunks: Buffer[] = [];
    let length = 0;
    const handler: Dispatcher.DispatchHandler = {
      onConnect() {},
      onHeaders(status, rawHeaders) {
        if (status < 200) return true; // an informational answer: the real one follows
        statusCode = status;
        for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
          // The first Retry-After, as `request()`'s parsed headers give it.
          if (retryAfter === undefined && String(rawHeaders[index]).toLowerCase() === "retry-after") {
            retryAfter = (rawHeaders[index + 1] as Buffer).toString("latin1");
          }
        }
        return true;
      },
      onData(chunk) {
        chunks.push(chunk);
        length += chunk.length;
        return true;
      },
      onComplete() {
        resolve({ statusCode, retryAfter, text: decode(chunks, length) });
      },
      onError(error) {
        reject(error);
      },
    };
    dispatcher.dispatch(
      {
        method: options.method as Dispatcher.HttpMethod,
        path: options.path,
        headers: options.headers,
        body: options.body,
      },
      handler,
    );
  });
}

/** UTF-8, without a leading byte order mark (as undici's `body.text()`). */
function decode(chunks: Buffer[], length: number): string {
  if (length === 0) return "";
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bytes.toString("utf8", bom ? 3 : 0);
}
