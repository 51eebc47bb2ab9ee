// Test helper: start a sandbox on a free loopback port for a test file and talk to it over real HTTP with fetch.
import { afterAll, beforeAll } from "vitest";
import { type RunningSandbox, type SandboxProviderId, startSandbox } from "../index.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers and assert on them field by field.
export type Json = any;

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: Json;
}

export async function fetchJson(url: string, init: RequestInit = {}): Promise<JsonResponse> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === "" ? null : JSON.parse(text) };
}

export interface SandboxClient {
  readonly url: string;
  get(path: string, init?: RequestInit): Promise<JsonResponse>;
  post(path: string, body: unknown): Promise<JsonResponse>;
  del(path: string): Promise<JsonResponse>;
}

export function clientFor(baseUrl: () => string): SandboxClient {
  return {
    get url() {
      return baseUrl();
    },
    get: (path, init) => fetchJson(`${baseUrl()}${path}`, init),
    post: (path, body) =>
      fetchJson(`${baseUrl()}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    del: (path) => fetchJson(`${baseUrl()}${path}`, { method: "DELETE" }),
  };
}

/** Starts the sandbox before the file's tests and closes it after them. */
export function useSandbox(providerId: SandboxProviderId): SandboxClient {
  let running: RunningSandbox | undefined;
  beforeAll(async () => {
    running = await startSandbox(providerId);
  });
  afterAll(async () => {
    await running?.close();
  });
  return clientFor(() => {
    if (running === undefined) throw new Error(`sandbox ${providerId} is not running`);
    return running.url;
  });
}
