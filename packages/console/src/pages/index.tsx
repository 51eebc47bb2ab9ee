// The console's pages and the paths they live at.
import type { JSX } from "preact";
import type { Session } from "../api.ts";
import { EmptyState } from "../components/feedback.tsx";
import { Link } from "../components/format.tsx";
import { ConnectionsPage } from "./Connections.tsx";
import { EventDetailPage } from "./EventDetail.tsx";
import { EventsPage } from "./Events.tsx";
import { KeysPage } from "./Keys.tsx";
import { ReferencePage } from "./Reference.tsx";
import { UsagePage } from "./Usage.tsx";
import { WebhooksPage } from "./Webhooks.tsx";

export const navigation = [
  { href: "/console/keys", label: "API keys" },
  { href: "/console/connections", label: "Connections" },
  { href: "/console/webhooks", label: "Webhook endpoint" },
  { href: "/console/events", label: "Events" },
  { href: "/console/reference", label: "API reference" },
  { href: "/console/usage", label: "Usage" },
];

interface Page {
  title: string;
  render(session: Session): JSX.Element;
}

export function pageFor(address: string): Page {
  // One trailing slash names the same page (`/console/keys/`), as it does `/console/`.
  const path = address.length > 1 ? address.replace(/\/$/, "") : address;
  const event = /^\/console\/events\/([^/]+)$/.exec(path);
  if (event?.[1]) {
    const id = decodeURIComponent(event[1]);
    return { title: "Event", render: () => <EventDetailPage key={id} eventId={id} /> };
  }
  switch (path) {
    case "/console/connections":
      return { title: "Connections", render: () => <ConnectionsPage /> };
    case "/console/webhooks":
      return { title: "Webhook endpoint", render: () => <WebhooksPage /> };
    case "/console/events":
      return { title: "Events", render: () => <EventsPage /> };
    case "/console/reference":
      return { title: "API reference", render: () => <ReferencePage /> };
    case "/console/usage":
      return { title: "Usage", render: () => <UsagePage /> };
    case "/console":
    case "/console/keys":
      return { title: "API keys", render: () => <KeysPage /> };
    default:
      // A mistyped or outdated address says so, rather than showing another page under it.
      return {
        title: "Page not found",
        render: () => (
          <EmptyState title="There is no such page in the console">
            Go to the <Link href="/console/keys">API keys</Link>, or pick a page from the menu.
          </EmptyState>
        ),
      };
  }
}
