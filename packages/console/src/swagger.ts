// Try-it-out uses the very Swagger UI that /docs serves (its files under /docs/static/), on the same OpenAPI document,
// adapted for the browser: requests go to this origin with the delegation token, and the connection header is gone
// (the token carries the connection on the server).

interface SwaggerRequest {
  url: string;
  headers: Record<string, string>;
}

interface SwaggerUiBundle {
  (options: Record<string, unknown>): unknown;
  presets: { apis: unknown };
}

declare global {
  interface Window {
    SwaggerUIBundle?: SwaggerUiBundle;
  }
}

let loading: Promise<SwaggerUiBundle> | undefined;

export function loadSwaggerUi(): Promise<SwaggerUiBundle> {
  loading ??= new Promise((resolve, reject) => {
    const css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = "/docs/static/swagger-ui.css";
    document.head.append(css);
    const script = document.createElement("script");
    script.src = "/docs/static/swagger-ui-bundle.js";
    script.onload = () =>
      window.SwaggerUIBundle ? resolve(window.SwaggerUIBundle) : reject(new Error("Swagger UI did not load"));
    script.onerror = () => {
      loading = undefined;
      reject(new Error("Swagger UI could not be loaded from /docs/static/"));
    };
    document.head.append(script);
  });
  return loading;
}

export type Spec = {
  servers?: unknown;
  tags?: { name: string }[];
  paths: Record<string, Record<string, { tags?: string[]; parameters?: { name?: string }[] }>>;
};

/**
 * The document for the browser: this origin as server, no platform operations, no connection header; only one
 * provider's operations when the token is limited to it.
 */
export function browserSpec(document: Spec, origin: string, provider?: string): Spec {
  const paths: Spec["paths"] = {};
  // By tag, the provider's id: the platform's operations (and the catalogue, tagged platform too) are not for tokens.
  const keep = (tags: string[] | undefined) =>
    !tags?.includes("platform") && (provider === undefined || tags?.includes(provider) === true);
  for (const [path, item] of Object.entries(document.paths)) {
    const kept = Object.entries(item).filter(([, operation]) => keep(operation.tags));
    if (kept.length === 0) continue;
    paths[path] = Object.fromEntries(
      kept.map(([method, operation]) => [
        method,
        { ...operation, parameters: (operation.parameters ?? []).filter((p) => p.name !== "X-Gateway-Connection-Id") },
      ]),
    );
  }
  const tags = (document.tags ?? []).filter((tag) => tag.name !== "platform" && (provider ?? tag.name) === tag.name);
  return { ...document, servers: [{ url: origin, description: "This gateway" }], tags, paths };
}

export function mountSwaggerUi(
  bundle: SwaggerUiBundle,
  domNode: HTMLElement,
  spec: Spec,
  authorization: () => Promise<string>,
): void {
  domNode.replaceChildren();
  bundle({
    domNode,
    spec,
    presets: [bundle.presets.apis],
    layout: "BaseLayout",
    // The whole API is large: providers start folded, and the schema section is left out (each operation shows its own).
    docExpansion: "none",
    defaultModelsExpandDepth: -1,
    filter: true,
    deepLinking: false,
    tryItOutEnabled: true,
    persistAuthorization: false,
    displayRequestDuration: true,
    requestInterceptor: async (request: SwaggerRequest) => {
      request.headers.Authorization = `Bearer ${await authorization()}`;
      delete request.headers["X-Gateway-Connection-Id"];
      return request;
    },
  });
}
