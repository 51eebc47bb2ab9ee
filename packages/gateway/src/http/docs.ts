// GET /openapi.json and the API reference with try-it-out at /docs (Swagger UI, served from the package's own files).
// /openapi.json names the gateway by GATEWAY_PUBLIC_URL, for clients and generators. The copy the page reads names it
// relative to where the page was loaded from instead: try-it-out then calls the origin the reader reached, whatever
// name that was (127.0.0.1 where the public URL says localhost, a container's host name), which the page's policy
// (connect to its own origin only) and the absence of CORS both require.
import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";

export async function docsRoutes(app: FastifyInstance, options: { document: object }) {
  const body = JSON.stringify(options.document);
  // As the gateway's other pages: no type sniffing, and no Referer to the sites the reference links to.
  app.addHook("onSend", (_request, reply, payload, done) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "no-referrer");
    done(null, payload);
  });
  app.get("/openapi.json", async (_request, reply) => reply.type("application/json; charset=utf-8").send(body));
  // Resolved against the page's copy's own address, /docs/json: the gateway's root, under any path prefix too.
  const pageDocument = {
    ...options.document,
    servers: [{ url: "..", description: "This gateway, as this page reached it" }],
  };
  await app.register(fastifySwagger, { mode: "static", specification: { document: pageDocument as never } });
  await app.register(fastifySwaggerUi, {
    routePrefix: "/docs",
    uiConfig: { docExpansion: "list", deepLinking: true, tryItOutEnabled: true, persistAuthorization: false },
    staticCSP: true,
    // The package's policy asks browsers to fetch the page's scripts over https: a gateway reached over plain http
    // at any name but a loopback one (a container's http://host:8080/docs) showed a blank page.
    transformStaticCSP: (policy: string) => policy.replace(/\s*upgrade-insecure-requests;?/, ""),
  });
}
