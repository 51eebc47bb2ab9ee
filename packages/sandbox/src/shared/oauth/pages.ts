// HTML of the sandbox authorization server: login, consent and error pages. Plain server-rendered forms, so that a
// test can drive them with fetch (parse the form, post it) as well as with a real browser.
import { escapeHtml as e } from "./http.ts";

// The pages are in English; the shops' names, their users' names and their own words are Japanese. Each run of
// Japanese text is marked as such, so that a screen reader reads each language with its own voice.
const japanese = "[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}ー・々]+";
const japaneseRun = new RegExp(`${japanese}(?:\\s+${japanese})*`, "gu");
/** Escaped text of the page's body, with its Japanese runs in `<span lang="ja">`. */
const t = (text: string) => e(text).replace(japaneseRun, (run) => `<span lang="ja">${run}</span>`);

function layout(siteName: string, title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)} · ${e(siteName)}</title>
<style>
body{font-family:system-ui,"Hiragino Sans",sans-serif;background:#f6f4ef;margin:0;color:#222}
main{max-width:26rem;margin:4rem auto;background:#fff;border-radius:12px;padding:2rem;box-shadow:0 2px 12px #0001}
h1{font-size:1.3rem;margin-top:0}label{display:block;margin:.8rem 0 .3rem}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.6rem;font-size:1rem}
button{margin-top:1.2rem;padding:.6rem 1.2rem;font-size:1rem;border-radius:6px;border:1px solid #888;cursor:pointer}
button.primary{background:#c0392b;color:#fff;border-color:#c0392b}.error{color:#b00020}.muted{color:#666;font-size:.9rem}
</style>
</head>
<body><main><p class="muted">${t(siteName)}</p>
${body}
</main></body>
</html>`;
}

export function loginPage(siteName: string, requestId: string, clientName: string, error?: string): string {
  return layout(
    siteName,
    "Sign in",
    `<h1>Sign in to ${t(siteName)}</h1>
<p>${t(clientName)} asks to connect to your account.</p>
${error ? `<p class="error" role="alert">${t(error)}</p>` : ""}
<form method="post" action="/oauth/login">
<input type="hidden" name="request_id" value="${e(requestId)}">
<label for="username">Username</label><input id="username" name="username" type="text" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit">Sign in</button>
</form>
<p class="muted">Sandbox demo user: demo / demo</p>`,
  );
}

export function consentPage(
  siteName: string,
  requestId: string,
  consentToken: string,
  clientName: string,
  userName: string,
  scopes: { scope: string; description: string }[],
): string {
  const items = scopes.map((s) => `<li><strong>${e(s.scope)}</strong>: ${t(s.description)}</li>`).join("");
  return layout(
    siteName,
    "Allow access",
    `<h1>Allow ${t(clientName)} to use your account?</h1>
<p>Signed in as <strong>${t(userName)}</strong>. ${t(clientName)} will be able to:</p>
<ul>${items}</ul>
<form method="post" action="/oauth/consent">
<input type="hidden" name="request_id" value="${e(requestId)}">
<input type="hidden" name="consent_token" value="${e(consentToken)}">
<button class="primary" type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function errorPage(siteName: string, title: string, message: string): string {
  return layout(siteName, title, `<h1>${t(title)}</h1><p class="error" role="alert">${t(message)}</p>`);
}
