// The hosted connect pages the end user sees: the start page, success, and one clear failure page per reason.
// They never show a connection id, a token or anything the tenant's server alone should know.
import type { FastifyReply } from "fastify";
import type { ConnectFailure } from "../../core/connections/connect-sessions.ts";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;color:#1d2330}
main{max-width:28rem;margin:5rem auto;background:#fff;border-radius:12px;padding:2rem;box-shadow:0 2px 14px #0001}
h1{font-size:1.35rem;margin-top:0}button{padding:.65rem 1.4rem;font-size:1rem;border-radius:6px;border:0;
background:#2451d6;color:#fff;cursor:pointer}.muted{color:#5b6475;font-size:.9rem}.ok{color:#1c7c3a}.bad{color:#b00020}
</style>
</head>
<body><main>
${body}
</main></body>
</html>`;
}

/** `binding` is the browser binding the form proposes (see binding.ts). */
export function startPage(accountName: string, providerTitle: string, formAction: string, binding: string): string {
  return page(
    `Connect ${providerTitle}`,
    `<h1>Connect your ${escapeHtml(providerTitle)} account</h1>
<p><strong>${escapeHtml(accountName)}</strong> asks for access to your ${escapeHtml(providerTitle)} account. You will sign in
on ${escapeHtml(providerTitle)}'s own page and choose whether to allow it.</p>
<form method="post" action="${escapeHtml(formAction)}"><input type="hidden" name="binding" value="${escapeHtml(binding)}"><button type="submit">Continue to ${escapeHtml(providerTitle)}</button></form>
<p class="muted">This link works once and expires 30 minutes after it was made.</p>`,
  );
}

export function successPage(accountName: string, providerTitle: string, replaced: boolean): string {
  return page(
    "Connected",
    `<h1 class="ok">Your ${escapeHtml(providerTitle)} account is connected</h1>
<p>${escapeHtml(accountName)} can now act on your ${escapeHtml(providerTitle)} account.${
      replaced ? " This replaces the connection you made before." : ""
    }</p>
<p>You can close this window.</p>`,
  );
}

const failures: Record<ConnectFailure, { status: number; title: string; message: (provider: string) => string }> = {
  unknown_link: {
    status: 404,
    title: "This connect link is not valid",
    message: () => "Check that you opened the whole link, or ask the app for a new one.",
  },
  expired: {
    status: 410,
    title: "This connect link has expired",
    message: () => "Connect links work for 30 minutes. Go back to the app and start again.",
  },
  already_used: {
    status: 410,
    title: "This connect link was already used",
    message: () => "Each link works once. Go back to the app to see whether you are connected, or start again.",
  },
  other_browser: {
    status: 400,
    title: "Finish in the browser you started in",
    message: () => "This sign-in was started in another browser or window. Open the connect link again there.",
  },
  denied: {
    status: 403,
    title: "Nothing was connected",
    message: (p) => `You declined access at ${p}. Go back to the app if you want to try again.`,
  },
  provider_error: {
    status: 502,
    title: "Nothing was connected",
    message: (p) => `${p} did not confirm the connection. Go back to the app and start again.`,
  },
  provider_unavailable: {
    status: 502,
    title: "Nothing was connected",
    message: (p) =>
      `${p} could not be reached, or did not answer properly, just now. Go back to the app and try again in a few minutes.`,
  },
};

export function failurePage(failure: ConnectFailure, providerTitle: string): { status: number; html: string } {
  const { status, title, message } = failures[failure];
  return {
    status,
    html: page(title, `<h1 class="bad">${escapeHtml(title)}</h1><p>${escapeHtml(message(providerTitle))}</p>`),
  };
}

/** A method the address does not take (a PUT on a connect link), or a request body that could not be read. */
export const unusableRequestPage = () =>
  page(
    "Open the connect link in a browser",
    `<h1 class="bad">Open the connect link in a browser</h1><p>This address is a page for people. Open the link the app
gave you in a web browser, or ask the app for a new one.</p>`,
  );

export const errorPage = () =>
  page(
    "Something went wrong",
    `<h1 class="bad">Something went wrong</h1><p>Nothing was connected. Try again later.</p>`,
  );

/** Answers a page with the headers every connect page has: not cacheable, no referrer, no framing, no scripts. */
export function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("referrer-policy", "no-referrer")
    .header("x-frame-options", "DENY")
    .header("x-content-type-options", "nosniff")
    .header(
      "content-security-policy",
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    )
    .send(body);
}
