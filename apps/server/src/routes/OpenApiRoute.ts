/**
 * GET /v1/openapi.json and GET /docs. The request and response schemas are generated from the
 * protocol package's own schemas, so the document cannot drift from what the server checks.
 */
import {
  ChatCompletion,
  ChatCompletionRequest,
  CompletionRequest,
  EmbeddingRequest,
  GatewayConfig,
  StoredObjectRequests
} from "@switchyard/protocol"
import { Effect, Schema } from "effect"
import { HttpServerResponse } from "effect/http"

// The type side: a closed struct checks its keys on an untyped record first (protocol's
// internal/Structs), so its encoded side says nothing of its fields.
const jsonSchemaOf = (schema: Schema.Top): unknown => {
  const document = Schema.toJsonSchemaDocument(Schema.toType(schema))
  return { ...document.schema, $defs: document.definitions }
}

const errorSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["message", "type", "param", "code"],
      properties: {
        message: { type: "string" },
        type: { type: "string" },
        param: { type: ["string", "null"] },
        code: { type: ["string", "null"] }
      }
    }
  }
}

const gatewayHeaders = [
  { name: "x-gateway-api-key", in: "header", required: true, schema: { type: "string" } },
  { name: "x-gateway-config", in: "header", schema: { type: "string" }, description: "A config object as JSON" },
  { name: "x-gateway-provider", in: "header", schema: { type: "string" }, description: "A short provider name" },
  { name: "x-gateway-custom-host", in: "header", schema: { type: "string" } },
  { name: "x-gateway-trace-id", in: "header", schema: { type: "string" } },
  { name: "x-gateway-metadata", in: "header", schema: { type: "string" }, description: "JSON object of strings" }
]

const errors = Object.fromEntries(
  [["400", "Bad input"], ["401", "Missing or invalid key"], ["403", "Missing scope"], ["413", "Body too large"], [
    "502",
    "Upstream unreachable"
  ]].map(([status, description]) => [
    status,
    { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } }
  ])
)

const inference = (summary: string, requestSchema: string, streams: boolean) => ({
  post: {
    summary,
    parameters: gatewayHeaders,
    requestBody: {
      required: true,
      content: { "application/json": { schema: { $ref: `#/components/schemas/${requestSchema}` } } }
    },
    responses: {
      "200": {
        description: streams
          ? "The answer, or server-sent events ending in `data: [DONE]` when `stream` is true"
          : "The answer",
        content: {
          "application/json": {},
          ...(streams ? { "text/event-stream": {} } : {})
        }
      },
      ...errors
    }
  }
})

/** What the document needs to know of a route. */
export interface DocumentedRoute {
  readonly method: string
  readonly path: string
  readonly scope: string | null
}

/** Request bodies by `METHOD path`; inference routes stream, the others answer JSON. */
const requestBodies: Readonly<Record<string, { readonly schema: string; readonly streams?: boolean }>> = {
  "POST /v1/chat/completions": { schema: "ChatCompletionRequest", streams: true },
  "POST /v1/completions": { schema: "CompletionRequest", streams: true },
  "POST /v1/embeddings": { schema: "EmbeddingRequest" },
  "POST /v1/api-keys": { schema: "CreateApiKey" },
  "POST /v1/integrations": { schema: "CreateIntegration" },
  "POST /v1/virtual-keys": { schema: "CreateVirtualKey" },
  "POST /v1/configs": { schema: "CreateConfig" },
  "PUT /v1/configs/:id": { schema: "UpdateConfig" }
}

const operation = (route: DocumentedRoute) => {
  const body = requestBodies[`${route.method} ${route.path}`]
  if (body?.streams !== undefined) return inference(`${route.method} ${route.path}`, body.schema, body.streams)
  return {
    summary: `${route.method} ${route.path}`,
    description: route.scope === null ? "No authentication." : `Needs the scope \`${route.scope}\`.`,
    parameters: route.scope === null ? [] : [gatewayHeaders[0]],
    ...(body === undefined
      ? {}
      : {
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: `#/components/schemas/${body.schema}` } } }
        }
      }),
    responses: { "200": { description: "The object, or a list of them" }, ...errors }
  }
}

/** Built on the first request: generating the schemas costs memory a server may never need. */
const openApiDocument = (routes: ReadonlyArray<DocumentedRoute>) => {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    const path = route.path.replace(/:([a-z_]+)/g, "{$1}")
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Switchyard",
      version: "0.1.0",
      description: "One OpenAI-compatible endpoint in front of every model provider."
    },
    paths,
    components: {
      schemas: {
        ChatCompletionRequest: jsonSchemaOf(ChatCompletionRequest.ChatCompletionRequest),
        ChatCompletion: jsonSchemaOf(ChatCompletion.ChatCompletion),
        CompletionRequest: jsonSchemaOf(CompletionRequest.CompletionRequest),
        EmbeddingRequest: jsonSchemaOf(EmbeddingRequest.EmbeddingRequest),
        GatewayConfig: jsonSchemaOf(GatewayConfig.GatewayConfig),
        CreateApiKey: jsonSchemaOf(StoredObjectRequests.CreateApiKey),
        CreateIntegration: jsonSchemaOf(StoredObjectRequests.CreateIntegration),
        CreateVirtualKey: jsonSchemaOf(StoredObjectRequests.CreateVirtualKey),
        CreateConfig: jsonSchemaOf(StoredObjectRequests.CreateConfig),
        UpdateConfig: jsonSchemaOf(StoredObjectRequests.UpdateConfig),
        Error: errorSchema
      }
    }
  }
}

/** The document of the given route table, built once on the first request. */
export const document = (routes: () => ReadonlyArray<DocumentedRoute>) => {
  let built: HttpServerResponse.HttpServerResponse | undefined
  return Effect.sync(() => (built ??= HttpServerResponse.jsonUnsafe(openApiDocument(routes()))))
}

/** A page that renders the document with no assets of its own beyond the browser. */
export const docsPage = HttpServerResponse.html(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Switchyard API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
code,pre{background:#f4f4f4;padding:.1rem .3rem}pre{padding:1rem;overflow:auto}h2{margin-top:2rem}</style></head>
<body><h1>Switchyard API</h1><p>The machine-readable document is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</p>
<div id="routes"></div>
<script type="module">
const doc = await (await fetch("/v1/openapi.json")).json()
const root = document.getElementById("routes")
for (const [path, item] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(item)) {
    const section = document.createElement("section")
    const h2 = document.createElement("h2")
    h2.textContent = method.toUpperCase() + " " + path
    const p = document.createElement("p")
    p.textContent = op.summary
    const pre = document.createElement("pre")
    pre.textContent = JSON.stringify({ parameters: op.parameters, responses: Object.keys(op.responses) }, null, 2)
    section.append(h2, p, pre)
    root.append(section)
  }
}
</script></body></html>`)
