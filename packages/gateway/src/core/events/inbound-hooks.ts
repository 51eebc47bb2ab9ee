// Accepting an inbound provider hook: verify its signature (the same timestamped scheme as outbound webhooks), skip
// it if its id was processed before, and hand it to the provider, whose state changes and events commit together
// with the record that it was processed. A refused hook changes nothing.
import { isUtf8 } from "node:buffer";
import type { HookContext, HookEvent, HookResult } from "../../providers/types.ts";
import { invalidRequest } from "../errors.ts";
import { unstorableText } from "../json-text.ts";
import type { CoreServices } from "../services.ts";
import { verifySignatureHeader } from "../webhooks/signature.ts";

export interface InboundHook {
  providerId: string;
  rawBody: Buffer;
  signatureHeader: string | undefined;
  secret: string;
  handle(event: HookEvent, ctx: HookContext): Promise<HookResult>;
  context: Omit<HookContext, "trx">;
}

function parseHookEvent(rawBody: Buffer): HookEvent {
  // As for a request's body: text both stores keep as it came, so that a hook is answered alike on either (a NUL
  // was a 500 on PostgreSQL; bytes that are not UTF-8 would have become U+FFFD, two ids one).
  if (!isUtf8(rawBody)) throw invalidRequest("The hook body is not valid UTF-8");
  let value: unknown;
  try {
    value = JSON.parse(rawBody.toString("utf8"));
  } catch {
    throw invalidRequest("The hook body is not JSON");
  }
  const unstorable = unstorableText(value, "hook body");
  if (unstorable) throw unstorable;
  const event = value as Partial<HookEvent> | null;
  const problems = [
    ...(typeof event?.id === "string" && event.id.length > 0 && event.id.length <= 255
      ? []
      : [{ path: "/id", message: "must be a string of 1 to 255 characters" }]),
    ...(typeof event?.type === "string" && event.type.length > 0
      ? []
      : [{ path: "/type", message: "must be a string" }]),
    ...(typeof event?.data === "object" && event.data !== null && !Array.isArray(event.data)
      ? []
      : [{ path: "/data", message: "must be an object" }]),
  ];
  if (problems.length > 0) throw invalidRequest("The hook body is not a hook event {id, type, data}", problems);
  return event as HookEvent;
}

export async function acceptInboundHook(
  core: CoreServices,
  hook: InboundHook,
): Promise<{ duplicate: boolean; eventIds: string[] }> {
  verifySignatureHeader({
    header: hook.signatureHeader,
    rawBody: hook.rawBody,
    secret: hook.secret,
    nowMs: core.clock.now(),
  });
  const event = parseHookEvent(hook.rawBody);
  return core.store.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto("inbound_hooks")
      .values({
        provider_id: hook.providerId,
        provider_event_id: event.id,
        type: event.type,
        received_at: core.clock.now(),
      })
      .onConflict((oc) => oc.columns(["provider_id", "provider_event_id"]).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return { duplicate: true, eventIds: [] };
    const result = await hook.handle(event, { ...hook.context, trx });
    const eventIds: string[] = [];
    for (const input of result.events ?? []) eventIds.push((await core.events.record(trx, input)).id);
    return { duplicate: false, eventIds };
  });
}
