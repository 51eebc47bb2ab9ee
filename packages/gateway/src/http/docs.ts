// GET /openapi.json and the API reference with try-it-out at /docs (Swagger UI, served from the package's own files).
import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";

export async function docsRoutes(app: FastifyInstance, options: { document: object }) {
  const body = JSON.stringify(options.document);
  app.get("/openapi.json", async (_request, reply) => reply.type("application/json; charset=utf-8").send(body));
  await app.register(fastifySwagger, {
    mode: "static",
    specification: { document: options.document as never },
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: "/docs",
    uiConfig: { docExpansion: "list", deepLinking: true, tryItOutEnabled: true, persistAuthorization: false },
    staticCSP: true,
    // The package's policy asks browsers to fetch the page's scripts over https: a gateway reached over plain http
    // at any name but a loopback one (a container's http://host:8080/docs) showed a blank page.
    transformStaticCSP: (policy: string) => policy.replace(/\s*upgrade-insecure-requests;?/, ""),
  });
}
