// Sign-in with email and password. Throttled on the server; its errors (wrong password, too many attempts) are shown
// as they come, with their request id.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Session } from "../api.ts";
import { ErrorNotice } from "../components/feedback.tsx";
import { useAction } from "../hooks.ts";
import { useHeadingFocus } from "../Layout.tsx";

export function SignIn({ ended, onSignedIn }: { ended: boolean; onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const signIn = useAction(async () => onSignedIn((await api.signIn(email, password)).data));
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = "Sign in · Provider Gateway";
  }, []);
  useHeadingFocus(heading, []);

  return (
    <main class="signin" id="main">
      <form
        class="card signin-card"
        onSubmit={(event) => {
          event.preventDefault();
          void signIn.run();
        }}
      >
        <p class="brand">
          <span class="brand-mark" aria-hidden="true">
            ◆
          </span>{" "}
          Provider Gateway
        </p>
        <h1 tabIndex={-1} ref={heading}>
          Sign in to the console
        </h1>
        {ended && !signIn.error && (
          <p class="notice notice-info" role="status">
            Your session has ended. Sign in again to continue.
          </p>
        )}
        <ErrorNotice error={signIn.error} />
        <div class="field">
          <label for="email">Email</label>
          <input
            id="email"
            type="email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input
            id="password"
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </div>
        <button type="submit" class="button-primary button-block" disabled={signIn.pending}>
          {signIn.pending ? "Signing in…" : "Sign in"}
        </button>
        <p class="muted small">
          No account? An operator creates users with <code>gateway users create</code>. Meanwhile, try the{" "}
          <a href="/demo">public demo</a> or read the <a href="/docs">API reference</a>.
        </p>
      </form>
    </main>
  );
}
