// One webhook POST through undici's dispatch API: the status, the Location header and the first 1 KiB of the body,
// under a total timeout. Cheaper per attempt than `request()`, which wraps every answer in a Readable stream and needs
// an AbortController for the timeout; the worker sends thousands of these a second.
import type { Dispatcher } from "undici";
import { isHeaderName } from "../header-names.ts";

export interface PostAnswer {
  statusCode: number;
  location: string | undefined;
  /** The body as text, whole when it declared at most `keepBytes`, else its first `keepBytes` bytes. */
  body: string;
}

export class PostTimeoutError extends Error {}

export function postOnce(
  dispatcher: Dispatcher,
  options: { origin: string; path: string; headers: Record<string, string>; body: string; timeoutMs: number },
  keepBytes: number,
): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    let abort: ((reason: Error) => void) | undefined;
    let settled = false;
    let statusCode = 0;
    let location: string | undefined;
    let whole = false;
    const chunks: Buffer[] = [];
    let length = 0;
    const settle = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) return reject(error);
      resolve({ statusCode, location, body: decode(chunks, length, whole, keepBytes) });
    };
    const timer = setTimeout(() => {
      const error = new PostTimeoutError(`no complete answer within ${options.timeoutMs} ms`);
      settle(error);
      abort?.(error);
    }, options.timeoutMs);
    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortRequest) {
        abort = abortRequest;
        if (settled) abortRequest(new PostTimeoutError("timed out before the request was sent"));
      },
      onHeaders(status, rawHeaders) {
        if (status < 200) return true; // an informational answer: the real one follows
        statusCode = status;
        for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
          const name = rawHeaders[index] as Buffer;
          if (isHeaderName(name, "location")) location = (rawHeaders[index + 1] as Buffer).toString("latin1");
          else if (isHeaderName(name, "content-length")) whole = Number(String(rawHeaders[index + 1])) <= keepBytes;
        }
        return true;
      },
      onData(chunk) {
        chunks.push(chunk);
        length += chunk.length;
        // A long or endless body costs nothing beyond what is kept: the connection is dropped.
        if (!whole && length >= keepBytes) {
          settle(undefined);
          abort?.(new Error("response body beyond what is kept"));
        }
        return true;
      },
      onComplete() {
        settle(undefined);
      },
      onError(error) {
        settle(error);
      },
    };
    dispatcher.dispatch(
      { origin: options.origin, path: options.path, method: "POST", headers: options.headers, body: options.body },
      handler,
    );
  });
}

function decode(chunks: Buffer[], length: number, whole: boolean, keepBytes: number): string {
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
  if (!whole) return bytes.subarray(0, keepBytes).toString("utf8");
  // As undici's body.text(): a leading byte order mark is not part of the text.
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bytes.toString("utf8", bom ? 3 : 0);
}
