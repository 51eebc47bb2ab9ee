// The frame of every signed-in page: a skip link, the header (account, user, sign-out), the navigation (a sidebar on
// wide screens, a scrolling row on phones) and the page's heading, which takes focus after each navigation.
import type { ComponentChildren, RefObject } from "preact";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import type { ApiError, Session } from "./api.ts";
import { ErrorNotice } from "./components/feedback.tsx";
import { Link } from "./components/format.tsx";
import { useAction } from "./hooks.ts";
import { navigation } from "./pages/index.tsx";

export function Layout(props: {
  session: Session;
  path: string;
  title: string;
  /** Ends the session; a failure is shown here, and the user stays signed in. */
  onSignOut: () => Promise<void>;
  /** Why the operation catalogue (scopes, providers, event types the forms offer) could not be read, if it could not. */
  catalogueError?: ApiError | undefined;
  onReloadCatalogue?: () => void;
  children: ComponentChildren;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const signOut = useAction(props.onSignOut);
  useEffect(() => {
    document.title = `${props.title} · Provider Gateway`;
  }, [props.title]);
  useHeadingFocus(heading, [props.title, props.path]);
  useEffect(() => keepFocusOnPage(() => heading.current), []);

  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link href="/console/keys" class="brand">
          <span class="brand-mark" aria-hidden="true">
            ◆
          </span>{" "}
          Provider Gateway
        </Link>
        <div class="who">
          <span class="account" title="Account">
            {props.session.account_id}
          </span>
          <span class="email">{props.session.user.email}</span>
          <button
            type="button"
            class="button-secondary button-small"
            onClick={() => void signOut.run()}
            disabled={signOut.pending}
          >
            Sign out
          </button>
        </div>
      </header>
      <nav class="sidenav" aria-label="Console">
        <ul>
          {navigation.map((item) => {
            const current = props.path === item.href || props.path.startsWith(`${item.href}/`);
            return (
              <li key={item.href}>
                <Link href={item.href} current={current}>
                  {item.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" class="content">
        <ErrorNotice error={signOut.error} onDismiss={signOut.clearError} />
        {props.catalogueError && (
          <div class="catalogue-error">
            <p>
              The list of providers, scopes and event types could not be read: the forms below cannot offer them until
              it is.
            </p>
            <ErrorNotice error={props.catalogueError} />
            <button type="button" class="button-secondary button-small" onClick={props.onReloadCatalogue}>
              Read it again
            </button>
          </div>
        )}
        <h1 tabIndex={-1} ref={heading}>
          {props.title}
        </h1>
        {props.children}
      </main>
    </div>
  );
}

// The first page the document shows leaves focus where the browser put it; every later one (a navigation, the pages
// after signing in, the sign-in page after signing out or after the session ended) moves it to its heading, which
// tells screen reader users the page changed.
let shownAPage = false;

export function useHeadingFocus(heading: RefObject<HTMLHeadingElement | null>, inputs: unknown[]): void {
  // In the render's own task, before the page is painted: nothing (a reader, a key press) meets the new page with
  // focus still on the body.
  useLayoutEffect(() => {
    if (shownAPage) heading.current?.focus();
    shownAPage = true;
  }, inputs);
}

/**
 * Focus that a control takes with it would fall to the document's body, where keyboard and screen reader users lose
 * their place. A control disabled while its action runs (a form while it sends, Refresh while it reads) gets it back
 * once it is enabled again; one that goes away (a secret's panel once dismissed, a revoked key's button) leaves it for
 * the page's heading. Answers the function that stops watching.
 */
function keepFocusOnPage(heading: () => HTMLElement | null): () => void {
  let last: HTMLElement | null = null;
  // The control that was focused when it was disabled, while focus waits for it.
  let waiting: HTMLElement | null = null;
  const track = (event: FocusEvent) => {
    last = event.target instanceof HTMLElement ? event.target : null;
    waiting = null;
  };
  const observer = new MutationObserver(() => {
    if (last === null || document.querySelector("dialog[open]") !== null) return;
    const active = document.activeElement;
    // The browser lets go of a disabled control's focus at its next rendering, after this runs: it is still the
    // active element here, or the body already.
    if (last.isConnected && last.matches(":disabled")) {
      if (active === last || active === document.body) waiting = last;
      return;
    }
    if (active !== null && active !== document.body) return;
    if (!last.isConnected) {
      heading()?.focus();
    } else if (waiting === last) {
      waiting = null;
      last.focus();
    }
  });
  document.addEventListener("focusin", track);
  observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["disabled"] });
  return () => {
    document.removeEventListener("focusin", track);
    observer.disconnect();
  };
}
