// The dispatch API's refusals in its own terms: `code` and `reason` go into its `{fault}` error body.
import { SandboxError } from "../shared/errors.ts";

export class DispatchError extends SandboxError {
  constructor(
    status: number,
    readonly code: string,
    message: string,
  ) {
    super(status, status === 404 ? "not_found" : "bad_request", message);
  }
}
