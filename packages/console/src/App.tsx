// The console: asks who is signed in, shows the sign-in page or the pages of the account, and goes back to sign-in
// as soon as the session ends (any 401 of the console API).
import { Fragment } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError, api, bindSession, type Session } from "./api.ts";
import { CatalogueContext, type LoadedCatalogue } from "./catalogue.ts";
import { ErrorNotice, Loading } from "./components/feedback.tsx";
import { asApiError } from "./hooks.ts";
import { Layout } from "./Layout.tsx";
import { pageFor } from "./pages/index.tsx";
import { SignIn } from "./pages/SignIn.tsx";
import { usePath } from "./router.ts";

type State =
  | { kind: "checking" }
  | { kind: "signed-out"; ended: boolean }
  | { kind: "signed-in"; session: Session }
  | { kind: "unknown"; error: ApiError };

export function App() {
  const [state, setState] = useState<State>({ kind: "checking" });
  const [catalogue, setCatalogue] = useState<LoadedCatalogue>({ providers: [], loaded: false });
  const [catalogueError, setCatalogueError] = useState<ApiError | undefined>();
  const { path, visit } = usePath();

  // The operation catalogue names the scopes, providers and event types the forms offer: without it they would offer
  // none and say so as if it were true, so its failure is shown, with a way to read it again.
  const loadCatalogue = () =>
    api.catalogue().then(
      (answer) => {
        setCatalogue({ ...answer.data, loaded: true });
        setCatalogueError(undefined);
      },
      (error: unknown) => setCatalogueError(asApiError(error)),
    );

  // Who is signed in: a 401 is nobody; any other failure (the gateway unreachable, a 500) says nothing about the
  // session, which may well be alive, and is shown as such rather than as the sign-in page.
  const checkSession = () => {
    setState({ kind: "checking" });
    api.session().then(
      (answer) => signedIn(answer.data),
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 401) signedOut(false);
        else setState({ kind: "unknown", error: asApiError(error) });
      },
    );
  };

  const signedOut = (ended: boolean) => {
    bindSession(undefined, () => {});
    setState({ kind: "signed-out", ended });
  };
  const signedIn = (session: Session) => {
    bindSession(session, () => signedOut(true), userChanged);
    setState({ kind: "signed-in", session });
    void loadCatalogue();
  };

  // Another tab signed in as someone else: this one follows the browser's session, reading everything again.
  const userChanged = () => checkSession();

  useEffect(checkSession, []);

  if (state.kind === "checking") {
    return (
      <main class="center">
        <Loading label="Opening the console" />
      </main>
    );
  }
  if (state.kind === "unknown") {
    return (
      <main class="center">
        <h1>The console could not reach the gateway</h1>
        <ErrorNotice error={state.error} />
        <button type="button" class="button-primary" onClick={checkSession}>
          Try again
        </button>
      </main>
    );
  }
  if (state.kind === "signed-out") return <SignIn ended={state.ended} onSignedIn={signedIn} />;
  const page = pageFor(path);
  return (
    <CatalogueContext.Provider value={catalogue}>
      <Layout
        key={state.session.user.id}
        session={state.session}
        catalogueError={catalogueError}
        onReloadCatalogue={() => void loadCatalogue()}
        path={path}
        title={page.title}
        onSignOut={async () => {
          await api.signOut().catch(async (error: unknown) => {
            // Another tab may have signed in again since this one read its CSRF token: the session is read again,
            // and the sign-out made with its token. Without a session (401) there is nothing left to end; a session
            // that cannot be read (the gateway unreachable) may still be alive, and the user is told, not signed out.
            const current = await api.session().catch((reading: unknown) => {
              if (reading instanceof ApiError && reading.status === 401) return undefined;
              throw error;
            });
            if (!current) return;
            bindSession(current.data, () => signedOut(true), userChanged);
            await api.signOut().catch(() => {
              throw error;
            });
          });
          signedOut(false);
        }}
      >
        <Fragment key={visit}>{page.render(state.session)}</Fragment>
      </Layout>
    </CatalogueContext.Provider>
  );
}
