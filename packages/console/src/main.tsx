// Entry of the single page: the public demo at /demo, the console everywhere else under /console.
import { render } from "preact";
import { App } from "./App.tsx";
import { DemoPage } from "./pages/Demo.tsx";
import "./styles.css";

const root = document.getElementById("app");
if (root) render(location.pathname.startsWith("/demo") ? <DemoPage /> : <App />, root);
