// A minimal browser over fetch for the non-interactive connect flow: follows redirects by hand, keeps cookies per
// origin, reads the forms of a page and submits them. Enough for the gateway's connect pages and a provider's
// server-rendered login and consent forms; no scripts.
import { fetchOrSay } from "./shared.ts";

export interface Page {
  url: string;
  status: number;
  html: string;
}

export interface Form {
  action: string;
  method: string;
  fields: Record<string, string>;
  /** Submit buttons as name → value (a form may offer several, e.g. allow / deny). */
  buttons: { name: string; value: string; label: string }[];
}

const decodeEntities = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
const attribute = (tag: string, name: string) => {
  const match = new RegExp(`\\s${name}="([^"]*)"`, "i").exec(tag);
  return match?.[1] === undefined ? undefined : decodeEntities(match[1]);
};

export function formsOf(html: string): Form[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)].map((match) => {
    const [, open = "", inner = ""] = match;
    const fields: Record<string, string> = {};
    for (const [input] of inner.matchAll(/<input\b[^>]*>/gi)) {
      const name = attribute(input, "name");
      if (name !== undefined) fields[name] = attribute(input, "value") ?? "";
    }
    const buttons = [...inner.matchAll(/<button\b([^>]*)>([\s\S]*?)<\/button>/gi)].map(([, tag = "", label = ""]) => ({
      name: attribute(tag, "name") ?? "",
      value: attribute(tag, "value") ?? "",
      label: label.trim(),
    }));
    return {
      action: attribute(open, "action") ?? "",
      method: (attribute(open, "method") ?? "get").toLowerCase(),
      fields,
      buttons,
    };
  });
}

/** The visible text of a page, for messages and assertions. */
export const textOf = (html: string) =>
  decodeEntities(html.replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]+>/g, " "))
    .replace(/\s+/g, " ")
    .trim();

export class FormBrowser {
  private readonly jar = new Map<string, Map<string, string>>();
  /** Every URL the browser was sent to, in order (redirects included). */
  readonly visited: string[] = [];
  /** When set, a redirect to a matching URL is not followed: the page answered is that URL with status 0. */
  stopBefore: ((url: string) => boolean) | undefined;

  async get(url: string): Promise<Page> {
    return this.navigate(url, { method: "GET" });
  }

  /** Submits a form of `page` with `fields` added (and the button, if given), as a browser would. */
  async submit(page: Page, form: Form, fields: Record<string, string> = {}, button?: { name: string; value: string }) {
    const body = new URLSearchParams({ ...form.fields, ...fields });
    if (button?.name) body.set(button.name, button.value);
    const action = new URL(form.action || page.url, page.url).toString();
    return this.navigate(action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: body.toString(),
    });
  }

  private async navigate(start: string, init: { method: string; headers?: Record<string, string>; body?: string }) {
    let url = start;
    let request = init;
    for (let hops = 0; hops < 20; hops++) {
      this.visited.push(url);
      const response = await fetchOrSay(url, {
        method: request.method,
        redirect: "manual",
        headers: { ...request.headers, ...this.cookieHeader(url), accept: "text/html" },
        ...(request.body !== undefined && { body: request.body }),
      });
      this.store(url, response.headers.getSetCookie());
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        url = new URL(location, url).toString();
        if (this.stopBefore?.(url)) return { url, status: 0, html: "" };
        // 303 always, and 301/302 after a POST in practice, continue with a GET.
        if (response.status !== 307 && response.status !== 308) request = { method: "GET" };
        continue;
      }
      return { url, status: response.status, html: await response.text() };
    }
    throw new Error(`Too many redirects from ${start}`);
  }

  /** The names of the cookies the browser holds for the URL's host. */
  cookieNames(url: string): string[] {
    return [...(this.jar.get(new URL(url).host)?.keys() ?? [])];
  }

  private cookieHeader(url: string): Record<string, string> {
    const cookies = this.jar.get(new URL(url).host);
    if (!cookies || cookies.size === 0) return {};
    return { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") };
  }

  private store(url: string, setCookies: string[]): void {
    const host = new URL(url).host;
    const cookies = this.jar.get(host) ?? new Map<string, string>();
    for (const line of setCookies) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired) cookies.delete(name);
      else cookies.set(name, pair.slice(eq + 1).trim());
    }
    this.jar.set(host, cookies);
  }
}
