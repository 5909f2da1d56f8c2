/**
 * The OpenAPI 3.1 document of a route table. Method, path, path parameters, scope and the errors
 * they imply come from the table; bodies, queries and answers from OpenApiOperations, whose
 * schemas are the ones the handlers decode with, compiled by effect's JSON Schema compiler into
 * one pool under `#/components/schemas`.
 */
import { RequestContext } from "@switchyard/core"
import { JsonSchema, Predicate, Schema, SchemaRepresentation } from "effect"
import type { OpenApi } from "effect/http-api"
import { type Answer, type Operation, operations, type SchemaName, schemas, tags } from "./OpenApiOperations.ts"

/** What the document needs to know of a route. */
export interface DocumentedRoute {
  readonly method: "GET" | "POST" | "PUT" | "DELETE"
  readonly path: string
  readonly scope: string | null
}

/** The security scheme every scoped route names, with the scope it needs as its role. */
export const SECURITY_SCHEME = "GatewayApiKey"

const methods = { GET: "get", POST: "post", PUT: "put", DELETE: "delete" } as const

const errorAnswers = {
  400: "Bad input: the message names the field and the rule.",
  401: "No key, or an unknown, revoked or expired one.",
  403: "The key lacks the route's scope.",
  404: "No such object in the caller's workspace.",
  408: "The body took too long to arrive, or the provider did not answer in time.",
  409: "The object conflicts with one that exists.",
  412:
    "A usage-limits policy's budget is spent, or a cost policy meets a model with no known price; the message names the policy or the model.",
  413: "The body is too large.",
  429: "A rate-limit policy's window is full (`Retry-After` says when to retry), or the provider's own 429.",
  446: "A guardrail denied the request or the answer; `hook_results` says which.",
  502: "The provider could not be reached. A provider's own error status is passed on as it answered.",
  503: "Not available now: every target's circuit is open, or a store the gateway needs is down."
} as const

type ErrorStatus = keyof typeof errorAnswers

/** `:id` segments of an HttpRouter path. */
const PATH_PARAMETER = /:([A-Za-z_][A-Za-z0-9_]*)/g

const openApiPath = (path: string) => path.replace(PATH_PARAMETER, "{$1}")

const pathParameters = (path: string) => [...path.matchAll(PATH_PARAMETER)].map((match) => match[1] ?? "")

/** `DELETE /v1/api-keys/:id` -> `deleteV1ApiKeysById`. */
const operationId = (route: DocumentedRoute) =>
  methods[route.method] +
  route.path.split(/[^A-Za-z0-9:]+/).filter((word) => word !== "").map((word) =>
    word.startsWith(":") ? `By${capitalize(word.slice(1))}` : capitalize(word)
  ).join("")

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

/** Routes added to the table before they are described here still get a valid operation. */
const fallback = (route: DocumentedRoute): Operation => ({
  tag: "Service",
  summary: `${route.method} ${route.path}`,
  answer: { description: "The answer.", mediaType: "application/json" }
})

const traceHeader: Record<string, OpenApi.OpenAPISpecHeader> = {
  [RequestContext.Headers.traceId]: {
    description: "The request's trace id: the one sent, or a new one.",
    required: true,
    schema: { type: "string" }
  }
}

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/**
 * The error body, the named schemas and the query structs as JSON Schema, sharing one pool of
 * definitions. The type side is compiled: a closed struct checks its keys on an untyped record
 * first (protocol's internal/Structs), so its encoded side says nothing of its fields.
 */
const compile = (named: ReadonlyArray<SchemaName>, queries: ReadonlyArray<Schema.Top>) => {
  const roots = [...named.map((name) => schemas[name]), ...queries].map((schema) => Schema.toType(schema).ast)
  const compiled = JsonSchema.toMultiDocumentOpenApi3_1(
    SchemaRepresentation.toJsonSchemaMultiDocument(
      SchemaRepresentation.toRepresentations([Schema.toType(schemas.ErrorBody).ast, ...roots])
    )
  )
  const [errorBody, ...rest] = compiled.schemas
  return {
    named: {
      ErrorBody: errorBody,
      ...Object.fromEntries(named.map((name, index) => [name, rest[index] ?? {}]))
    },
    queries: rest.slice(named.length),
    definitions: compiled.definitions
  }
}

/**
 * `{ anyOf: [x] }` -> `x`: the compiler writes a one-member union as it is declared, which is valid
 * but reads as a mistake to linters and renderers.
 */
const unwrapSingleUnions = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(unwrapSingleUnions)
  if (!Predicate.isObject(value)) return value
  const entries = Object.entries(value)
  const [only] = entries
  if (entries.length === 1 && only !== undefined && (only[0] === "anyOf" || only[0] === "oneOf")) {
    const members: unknown = only[1]
    if (Array.isArray(members) && members.length === 1) return unwrapSingleUnions(members[0])
  }
  return Object.fromEntries(entries.map(([key, member]) => [key, unwrapSingleUnions(member)]))
}

const simplified = (schema: JsonSchema.JsonSchema): JsonSchema.JsonSchema => {
  const unwrapped = unwrapSingleUnions(schema)
  return Predicate.isObject(unwrapped) ? unwrapped : schema
}

const queryParameters = (query: JsonSchema.JsonSchema): Array<OpenApi.OpenAPISpecParameter> => {
  const properties = typeof query.properties === "object" && query.properties !== null ? query.properties : {}
  const required = Array.isArray(query.required) ? query.required : []
  return Object.entries(properties).map(([name, schema]: [string, JsonSchema.JsonSchema]) => ({
    name,
    in: "query",
    required: required.includes(name),
    schema,
    ...(typeof schema.description === "string" ? { description: schema.description } : {})
  }))
}

const successContent = (answer: Answer): OpenApi.OpenApiSpecContent => ({
  [answer.mediaType]: { schema: answer.schema === undefined ? {} : schemaRef(answer.schema) },
  ...(answer.streams === true
    ? {
      "text/event-stream": {
        schema: { type: "string", description: "`data: {chunk}` events, the last one `data: [DONE]`." }
      }
    }
    : {})
})

const errorStatuses = (route: DocumentedRoute, operation: Operation): ReadonlyArray<ErrorStatus> => {
  const statuses = new Set<ErrorStatus>(operation.errors ?? [])
  if (route.scope !== null) statuses.add(401).add(403)
  if (operation.body !== undefined || operation.multipart !== undefined) statuses.add(400).add(408).add(413)
  if (operation.query !== undefined) statuses.add(400)
  if (pathParameters(route.path).length > 0) statuses.add(404)
  if (operation.upstream === true) statuses.add(408).add(412).add(429).add(446).add(502).add(503)
  return [...statuses].sort((a, b) => a - b)
}

const operationOf = (
  route: DocumentedRoute,
  operation: Operation,
  query: JsonSchema.JsonSchema | undefined
): OpenApi.OpenAPISpecOperation => {
  const responses: OpenApi.OpenAPISpecResponses = {
    200: { description: operation.answer.description, headers: traceHeader, content: successContent(operation.answer) }
  }
  for (const status of errorStatuses(route, operation)) {
    responses[status] = {
      description: errorAnswers[status],
      headers: traceHeader,
      content: { "application/json": { schema: schemaRef(operation.errorBody ?? "ErrorBody") } }
    }
  }
  const scope = route.scope
  const description = [
    operation.description,
    scope === null ? "No key needed." : `Needs a key with the scope \`${scope}\` (or \`admin\`).`
  ].filter((line) => line !== undefined).join("\n\n")
  return {
    operationId: operationId(route),
    summary: operation.summary,
    description,
    tags: [operation.tag],
    security: scope === null ? [] : [{ [SECURITY_SCHEME]: [scope] }],
    parameters: [
      ...pathParameters(route.path).map((name): OpenApi.OpenAPISpecParameter => ({
        name,
        in: "path",
        required: true,
        schema: { type: "string" }
      })),
      ...(query === undefined ? [] : queryParameters(query)),
      ...(operation.headers ?? []).map((header): OpenApi.OpenAPISpecParameter => ({
        name: header.name,
        in: "header",
        required: false,
        description: header.description,
        schema: { type: "string" }
      })),
      {
        name: RequestContext.Headers.traceId,
        in: "header",
        required: false,
        description: "A trace id to use for this request; one is made when absent.",
        schema: { type: "string" }
      }
    ],
    responses,
    ...(operation.body === undefined ? {} : {
      requestBody: { required: true, content: { "application/json": { schema: schemaRef(operation.body) } } }
    }),
    ...(operation.multipart === undefined ? {} : {
      requestBody: { required: true, content: { "multipart/form-data": { schema: schemaRef(operation.multipart) } } }
    })
  }
}

/** The document of `routes`, described by `version`. */
export const make = (routes: ReadonlyArray<DocumentedRoute>, version: string): OpenApi.OpenAPISpec => {
  const described = routes.map((route) => ({
    route,
    operation: operations[`${route.method} ${route.path}`] ?? fallback(route)
  }))
  const named = new Set<SchemaName>()
  for (const { operation } of described) {
    if (operation.body !== undefined) named.add(operation.body)
    if (operation.multipart !== undefined) named.add(operation.multipart)
    if (operation.answer.schema !== undefined) named.add(operation.answer.schema)
    if (operation.errorBody !== undefined) named.add(operation.errorBody)
  }
  const withQuery = described.filter(({ operation }) => operation.query !== undefined)
  const compiled = compile([...named], withQuery.flatMap(({ operation }) => operation.query ?? []))
  const componentSchemas: JsonSchema.Definitions = { ...compiled.named }
  for (const [name, definition] of Object.entries(compiled.definitions)) {
    // a definition named like a root would silently replace it
    if (name in componentSchemas) throw new Error(`OpenAPI: the schema name ${name} is used twice`)
    componentSchemas[name] = definition
  }
  const paths: OpenApi.OpenAPISpecPaths = {}
  for (const { route, operation } of described) {
    const query = operation.query === undefined
      ? undefined
      : compiled.queries[withQuery.findIndex((entry) => entry.route === route)]
    paths[openApiPath(route.path)] = {
      ...paths[openApiPath(route.path)],
      [methods[route.method]]: operationOf(route, operation, query)
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Switchyard",
      version,
      description: "One OpenAI-compatible endpoint in front of every model provider.",
      license: { name: "MIT", identifier: "MIT" }
    },
    servers: [{ url: "/", description: "This gateway" }],
    tags: Object.entries(tags)
      .filter(([name]) => described.some(({ operation }) => operation.tag === name))
      .map(([name, description]) => ({ name, description })),
    security: [],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(componentSchemas).map(([name, schema]) => [name, simplified(schema)])),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: "apiKey",
          in: "header",
          name: RequestContext.Headers.apiKey,
          description: "An API key, or a JWT whose `scope` claim lists its scopes. Each operation names the "
            + "scope it needs; `admin` implies every scope."
        }
      }
    }
  }
}
