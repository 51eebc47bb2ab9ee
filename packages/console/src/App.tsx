// The console: asks who is signed in, shows the sign-in page or the pages of the account, and goes back to sign-in
// as soon as the session ends (any 401 of the console API).
import { useEffect, useState } from "preact/hooks";
import { ApiError, api, bindSession, type Catalogue, type Session } from "./api.ts";
import { CatalogueContext } from "./catalogue.ts";
import { Loading } from "./components/feedback.tsx";
import { Layout } from "./Layout.tsx";
import { pageFor } from "./pages/index.tsx";
import { SignIn } from "./pages/SignIn.tsx";
import { usePath } from "./router.ts";

type State = { kind: "checking" } | { kind: "signed-out"; ended: boolean } | { kind: "signed-in"; session: Session };

export function App() {
  const [state, setState] = useState<State>({ kind: "checking" });
  const [catalogue, setCatalogue] = useState<Catalogue>({ providers: [] });
  const path = usePath();

  const signedOut = (ended: boolean) => {
    bindSession(undefined, () => {});
    setState({ kind: "signed-out", ended });
  };
  const signedIn = (session: Session) => {
    bindSession(session, () => signedOut(true), userChanged);
    setState({ kind: "signed-in", session });
    api.catalogue().then(
      (answer) => setCatalogue(answer.data),
      () => {},
    );
  };

  // Another tab signed in as someone else: this one follows the browser's session, reading everything again.
  const userChanged = () => {
    bindSession(undefined, () => {});
    api.session().then(
      (answer) => signedIn(answer.data),
      () => signedOut(true),
    );
  };

  useEffect(() => {
    api.session().then(
      (answer) => signedIn(answer.data),
      () => signedOut(false),
    );
  }, []);

  if (state.kind === "checking") {
    return (
      <main class="center">
        <Loading label="Opening the console" />
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
        {page.render(state.session)}
      </Layout>
    </CatalogueContext.Provider>
  );
}
