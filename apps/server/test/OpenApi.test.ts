import SwaggerParser from "@apidevtools/swagger-parser"
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { Routes } from "@switchyard/server"
import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as GatewayProcess from "./support/GatewayProcess.ts"

/** The parts of the document these tests read. */
const Operation = Schema.Struct({
  security: Schema.Array(Schema.Record(Schema.String, Schema.Array(Schema.String))),
  parameters: Schema.Array(Schema.Struct({ name: Schema.String, in: Schema.String, required: Schema.Boolean })),
  responses: Schema.Record(Schema.String, Schema.Unknown),
  requestBody: Schema.optionalKey(Schema.Unknown)
})
const Document = Schema.Struct({
  paths: Schema.Record(Schema.String, Schema.Record(Schema.String, Operation)),
  components: Schema.Struct({ schemas: Schema.Record(Schema.String, Schema.Unknown) })
})

const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, "{$1}")

let gateway: GatewayProcess.GatewayProcess
let source = ""
let document: typeof Document.Type

beforeAll(async () => {
  gateway = await GatewayProcess.start()
  const response = await fetch(`${gateway.baseUrl}/v1/openapi.json`)
  expect(response.status).toBe(200)
  source = await response.text()
  document = Schema.decodeUnknownSync(Schema.fromJsonString(Document))(source)
})
afterAll(() => gateway?.stop())

describe("GET /v1/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document whose every $ref resolves (swagger-parser)", async () => {
    // validate() checks the document against the OpenAPI 3.1 schema and dereferences every $ref
    await expect(SwaggerParser.validate(JSON.parse(source))).resolves.toBeDefined()
  })

  it("passes Redocly's recommended-strict rules with no error and no warning", async () => {
    // A public route (health, the document, the docs page) has no 4xx answer of its own; the
    // scoped routes' 401 and 403 are checked below.
    const config = await createConfig({ extends: ["recommended-strict"], rules: { "operation-4xx-response": "off" } })
    const problems = await lintFromString({ source, absoluteRef: "/v1/openapi.json", config })
    expect(problems.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`))
      .toEqual([])
  })

  it("points every $ref at a schema under #/components/schemas", () => {
    const refs = [...source.matchAll(/"\$ref":"([^"]*)"/g)].map((match) => match[1] ?? "")
    expect(refs.length).toBeGreaterThan(0)
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//)
      expect(Object.keys(document.components.schemas)).toContain(ref.slice("#/components/schemas/".length))
    }
  })

  it("describes every route of the table, and nothing else", () => {
    const described = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)
    )
    const routes = Routes.table.map((route) => `${route.method} ${openApiPath(route.path)}`)
    expect(described.toSorted()).toEqual(routes.toSorted())
  })

  for (const route of Routes.table) {
    const name = `${route.method} ${route.path}`
    const operation = () => document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()]
    if (route.scope === null) {
      it(`${name} needs no key`, () => expect(operation()?.security).toEqual([]))
    } else {
      it(`${name} needs x-gateway-api-key with the scope ${route.scope}, else 401 or 403`, () => {
        expect(operation()?.security).toEqual([{ GatewayApiKey: [route.scope] }])
        expect(Object.keys(operation()?.responses ?? {})).toEqual(expect.arrayContaining(["401", "403"]))
      })
    }
    for (const [, parameter] of route.path.matchAll(/:([A-Za-z_]+)/g)) {
      it(`${name} declares its path parameter ${parameter}`, () => {
        expect(operation()?.parameters).toContainEqual({ name: parameter, in: "path", required: true })
        expect(Object.keys(operation()?.responses ?? {})).toContain("404")
      })
    }
  }

  it("describes the chat body with the schema the server decodes it with", () => {
    expect(document.paths["/v1/chat/completions"]?.post?.requestBody).toEqual({
      required: true,
      content: { "application/json": { schema: { $ref: "#/components/schemas/ChatCompletionRequest" } } }
    })
    expect(document.components.schemas.ChatCompletionRequest).toMatchObject({
      type: "object",
      required: expect.arrayContaining(["model", "messages"])
    })
  })
})

describe("GET /docs", () => {
  it("forbids the browser to load anything from another host", async () => {
    const response = await fetch(`${gateway.baseUrl}/docs`)
    expect(response.status).toBe(200)
    const policy = response.headers.get("content-security-policy") ?? ""
    for (const directive of ["default-src 'none'", "script-src 'self'", "connect-src 'self'"]) {
      expect(policy).toContain(directive)
    }
    const page = await response.text()
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//)
  })

  it("serves Swagger UI's script and style sheet itself", async () => {
    const script = await fetch(`${gateway.baseUrl}/docs/swagger-ui.js`)
    expect(script.headers.get("content-type")).toContain("text/javascript")
    expect(await script.text()).toContain("SwaggerUIBundle")
    const style = await fetch(`${gateway.baseUrl}/docs/swagger-ui.css`)
    expect(style.headers.get("content-type")).toContain("text/css")
    expect(await style.text()).toContain(".swagger-ui")
  })
})
