/**
 * GET /v1/openapi.json (OpenApiDocument of the route table) and GET /docs, which renders it with
 * Swagger UI from the npm package swagger-ui-dist, served by the gateway itself: the page, its
 * style sheet and its script come from here, and its Content-Security-Policy lets the browser
 * load nothing from another host.
 */
import { Effect, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { readFile } from "node:fs/promises"
import * as OpenApiDocument from "./OpenApiDocument.ts"

/** Built on the first request and kept: a server may never need it. */
const once = <A>(build: () => Promise<A>): Effect.Effect<A> => {
  let built: Promise<A> | undefined
  return Effect.promise(() => (built ??= build()))
}

const PackageVersion = Schema.fromJsonString(Schema.Struct({ version: Schema.String }))

// src/routes and dist/routes are both two levels under the package's own package.json
const serverVersion = () =>
  readFile(new URL("../../package.json", import.meta.url), "utf8").then((text) =>
    Schema.decodeUnknownSync(PackageVersion)(text).version
  )

/** The document of the given route table. */
export const document = (routes: () => ReadonlyArray<OpenApiDocument.DocumentedRoute>) =>
  once(async () => HttpServerResponse.jsonUnsafe(OpenApiDocument.make(routes(), await serverVersion())))

const swaggerUiFile = (name: string) => readFile(new URL(import.meta.resolve(`swagger-ui-dist/${name}`)), "utf8")

/** Same origin only; Swagger UI sets inline style attributes, and its images are data: URLs. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

const CACHE = "public, max-age=3600"

export const docsPage = HttpServerResponse.html(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switchyard API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui.js"></script>
</body>
</html>
`).pipe(HttpServerResponse.setHeader("content-security-policy", CONTENT_SECURITY_POLICY))

export const docsStyle = once(async () =>
  HttpServerResponse.text(await swaggerUiFile("swagger-ui.css"), {
    contentType: "text/css; charset=utf-8",
    headers: { "cache-control": CACHE }
  })
)

// The start-up call goes after the bundle, in the same file, so the page needs no inline script.
// validatorUrl: null keeps Swagger UI from sending the document to its public validator.
const startUp = `
window.ui = SwaggerUIBundle({
  url: "/v1/openapi.json",
  dom_id: "#swagger-ui",
  validatorUrl: null,
  deepLinking: true
})
`

export const docsScript = once(async () =>
  HttpServerResponse.text(`${await swaggerUiFile("swagger-ui-bundle.js")}\n;${startUp}`, {
    contentType: "text/javascript; charset=utf-8",
    headers: { "cache-control": CACHE }
  })
)
