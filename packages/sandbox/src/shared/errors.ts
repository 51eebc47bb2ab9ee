// The one error type a sandbox route throws; each sandbox serialises it in its upstream's own error format.

export type SandboxErrorKind = "bad_request" | "not_found" | "injected_fault" | "internal";

export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly kind: SandboxErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "SandboxError";
  }
}

export const badRequest = (message: string): SandboxError => new SandboxError(400, "bad_request", message);
export const notFound = (message: string): SandboxError => new SandboxError(404, "not_found", message);

/** What an upstream answers for an error: status, optional headers, body in the upstream's own shape. */
export interface NativeErrorInput {
  status: number;
  kind: SandboxErrorKind;
  message: string;
}
export type NativeErrorFormatter = (error: NativeErrorInput) => unknown;
