// A small history router for the console's pages under /console/… (the gateway answers the page for each of them).
import { useEffect, useState } from "preact/hooks";

const listeners = new Set<() => void>();
const here = () => location.pathname + location.search;
// The address last navigated to, and how many navigations there were: a link or Back that changes only the query
// (Events while a type is chosen) is a navigation too, which shows the page afresh with that query, while Back over a
// fragment (the skip link's) is none.
let shown = here();
let visits = 0;

function visited(): void {
  shown = here();
  visits++;
  for (const listener of listeners) listener();
}

export function navigate(path: string): void {
  if (path === here()) return;
  history.pushState(null, "", path);
  visited();
  window.scrollTo(0, 0);
}

/** Changes the query of the page shown (a filter), without a history entry and without showing the page afresh. */
export function replaceQuery(query: URLSearchParams): void {
  const search = query.toString();
  history.replaceState(null, "", search ? `?${search}` : location.pathname);
  shown = here();
}

/** The path shown, and the navigation that showed it (a key that changes at each one). */
export function usePath(): { path: string; visit: number } {
  const [where, setWhere] = useState({ path: location.pathname, visit: visits });
  useEffect(() => {
    const update = () => setWhere({ path: location.pathname, visit: visits });
    const popped = () => {
      if (here() !== shown) visited();
    };
    listeners.add(update);
    window.addEventListener("popstate", popped);
    return () => {
      listeners.delete(update);
      window.removeEventListener("popstate", popped);
    };
  }, []);
  return where;
}

/** Internal links: plain anchors (keyboard, middle-click, copy link all work) that navigate without reloading. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.currentTarget as HTMLAnchorElement | null) ?? undefined;
  if (!anchor || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
    return;
  event.preventDefault();
  navigate(anchor.getAttribute("href") ?? "/console");
}
