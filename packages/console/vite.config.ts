// Builds the console into dist/, served by the gateway at /console (assets under /console/assets/). `npm run dev`
// serves it with live reload and hands the gateway's own paths to a gateway on GATEWAY_URL (default :8080).
import { defineConfig } from "vite";

const gateway = process.env.GATEWAY_URL ?? "http://localhost:8080";

export default defineConfig({
  base: "/console/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, target: "es2022" },
  server: {
    // The Host header is passed on as the browser sent it (Vite's shorthand would rewrite it to the gateway's): the
    // console API refuses a state change whose Origin is neither the public URL's nor that of the Host it was sent to.
    proxy: Object.fromEntries(
      ["/console/api", "/demo/api", "/docs", "/openapi.json", "/v1"].map((p) => [
        p,
        { target: gateway, changeOrigin: false },
      ]),
    ),
  },
});
