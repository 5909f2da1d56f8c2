/**
 * The limits of input (extensions.md): JSON depth, config depth, non-object configs, upstream
 * answers that claim JSON but are not, and slow clients. Each answer is the gateway's own JSON
 * envelope, and a refused request never reaches the provider.
 */
import { Behaviour } from "@switchyard/fake-providers"
import { connect } from "node:net"
import { describe, expect, it } from "vitest"
import { call } from "./support/Admin.ts"
import { chatBody, json, post, useGatewayAndFake, viaProviderHeader } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

const harness = useGatewayAndFake()

/** An object nested `depth` levels deep, the outermost being level 1. */
const nested = (depth: number): Record<string, unknown> => {
  let value: Record<string, unknown> = {}
  for (let level = 1; level < depth; level++) value = { a: value }
  return value
}

const leaf = () => ({ provider: "openai", api_key: "sk", custom_host: harness.fake.baseUrl })
const chain = (depth: number): Record<string, unknown> =>
  depth === 0 ? leaf() : { strategy: { mode: "fallback" }, targets: [chain(depth - 1)] }

const withConfig = (config: string) => ({
  "content-type": "application/json",
  "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
  "x-gateway-config": config
})

/** The JSON text of an object nested `depth` levels deep: too deep for JSON.stringify here. */
const nestedText = (depth: number): string => `${"{\"a\":".repeat(depth - 1)}{}${"}".repeat(depth - 1)}`
const MARK = "\"DEEP\""

describe("JSON depth", () => {
  // the body is level 1, tools level 2, a tool 3, its function 4: parameters start at level 5
  it.each([
    ["tools[].function.parameters", 4, { tools: [{ type: "function", function: { name: "f", parameters: "DEEP" } }] }],
    ["response_format.json_schema.schema", 3, {
      response_format: { type: "json_schema", json_schema: { name: "s", schema: "DEEP" } }
    }],
    ["metadata", 1, { metadata: "DEEP" }]
  ])("in %s: 64 levels pass validation, 65 and 5,000 answer 400 naming the depth", async (_field, above, fields) => {
    const body = (depth: number) => JSON.stringify(chatBody(fields)).replace(MARK, nestedText(depth - above))
    const at64 = await post(harness, "/v1/chat/completions", body(64))
    expect(JSON.stringify(await json(at64))).not.toContain("nested deeper")
    harness.fake.reset()
    for (const depth of [65, 5_000]) {
      const response = await post(harness, "/v1/chat/completions", body(depth))
      expect(response.status).toBe(400)
      expect(await json(response)).toEqual({
        error: {
          message: "body: must not be nested deeper than 64 levels of objects and arrays",
          type: "invalid_request_error",
          param: null,
          code: "invalid_request"
        }
      })
    }
    expect(harness.fake.requests).toHaveLength(0)
  })

  it("applies to the management routes and to JSON headers too", async () => {
    const stored = await call(harness.gateway.baseUrl, "POST", "/v1/configs", {
      body: { name: "deep", config: nested(70) }
    })
    expect(stored.status).toBe(400)
    expect(stored.body.error.message).toContain("nested deeper than 64 levels")
    const metadata = await post(harness, "/v1/chat/completions", chatBody(), {
      ...viaProviderHeader(harness.fake),
      "x-gateway-metadata": JSON.stringify(nested(70))
    })
    expect(metadata.status).toBe(400)
    expect((await json(metadata)).error).toMatchObject({ param: "x-gateway-metadata" })
    expect(harness.fake.requests).toHaveLength(0)
  })
})

describe("config depth", () => {
  it("accepts 10 strategy levels and refuses the 11th, naming where it is", async () => {
    expect((await post(harness, "/v1/chat/completions", chatBody(), withConfig(JSON.stringify(chain(10))))).status)
      .toBe(200)
    const response = await post(harness, "/v1/chat/completions", chatBody(), withConfig(JSON.stringify(chain(11))))
    expect(response.status).toBe(400)
    const path = "config" + ".targets[0]".repeat(10)
    expect((await json(response)).error).toMatchObject({ param: path })
  })

  it("answers a deep config header at once and keeps the server responsive", async () => {
    const started = Date.now()
    const answers = await Promise.all(
      [20, 30, 40].map((depth) =>
        post(harness, "/v1/chat/completions", chatBody(), withConfig(JSON.stringify(chain(depth))))
      )
    )
    expect(answers.map((response) => response.status)).toEqual([400, 400, 400])
    expect((await fetch(`${harness.gateway.baseUrl}/health`)).status).toBe(200)
    expect(Date.now() - started).toBeLessThan(1_000)
  })

  it.each([["[1]", "an array"], ["5", "a number"], ["null", "null"], ["\"openai\"", "a string"]])(
    "refuses %s in x-gateway-config with 400 instead of ignoring it",
    async (config, kind) => {
      const response = await post(harness, "/v1/chat/completions", chatBody(), {
        ...viaProviderHeader(harness.fake),
        "x-gateway-config": config
      })
      expect(response.status).toBe(400)
      expect((await json(response)).error).toEqual({
        message: `x-gateway-config: must be a JSON object or a stored config id (pc-…), not ${kind}`,
        type: "invalid_request_error",
        param: "x-gateway-config",
        code: "invalid_request"
      })
      expect(harness.fake.requests).toHaveLength(0)
    }
  )
})

describe("an upstream answer that claims JSON but does not parse", () => {
  it("answers 502 naming the provider, and is never cached", async () => {
    const cached = withConfig(JSON.stringify({ ...leaf(), cache: { mode: "simple" } }))
    for (const attempt of [1, 2]) {
      harness.fake.enqueue(
        Behaviour.json(200, "{\"id\": \"chatcmpl-1\", \"choices\": [", { "content-type": "application/json" })
      )
      const response = await post(harness, "/v1/chat/completions", chatBody(), cached)
      expect(response.status).toBe(502)
      expect((await json(response)).error).toMatchObject({
        message: "openai: answered 200 with a body that is not valid JSON",
        type: "upstream_error"
      })
      expect(harness.fake.requests).toHaveLength(attempt)
    }
    const valid = await post(harness, "/v1/chat/completions", chatBody(), cached)
    expect(valid.status).toBe(200)
    expect(valid.headers.get("x-gateway-cache-status")).toBe("MISS")
  })
})

/** Sends `head` (and then nothing more) on a raw socket and reads until the gateway closes it. */
const sendAndWait = (port: number, head: string): Promise<{ readonly text: string; readonly ms: number }> =>
  new Promise((resolve, reject) => {
    const started = Date.now()
    const socket = connect(port, "127.0.0.1", () => socket.write(head))
    let text = ""
    socket.on("data", (data: Buffer) => (text += data.toString()))
    socket.on("close", () => resolve({ text, ms: Date.now() - started }))
    socket.on("error", reject)
    socket.setTimeout(10_000, () => socket.destroy(new Error("the gateway never closed the connection")))
  })

const bodyOf = (text: string): unknown => JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))

describe("slow clients", () => {
  it("get 408 in the envelope when headers or a body are too slow, and lose the connection", async () => {
    const gateway = await GatewayProcess.start({
      GATEWAY_HEADERS_TIMEOUT_SECONDS: "1",
      GATEWAY_BODY_TIMEOUT_SECONDS: "1"
    })
    try {
      const headers = await sendAndWait(gateway.port, "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n")
      expect(headers.text).toMatch(/^HTTP\/1\.1 408 /)
      expect(bodyOf(headers.text)).toMatchObject({ error: { code: "request_timeout" } })
      expect(headers.ms).toBeLessThan(5_000)
      const bodies = await Promise.all(["/v1/chat/completions", "/v1/configs"].map((path) =>
        sendAndWait(
          gateway.port,
          `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
            `x-gateway-api-key: ${GatewayProcess.ADMIN_KEY}\r\ncontent-length: 100\r\n\r\n{"model":`
        )
      ))
      for (const body of bodies) {
        expect(body.text).toMatch(/^HTTP\/1\.1 408 /)
        expect(body.text.toLowerCase()).toContain("connection: close")
        expect(bodyOf(body.text)).toEqual({
          error: {
            message: "body: did not arrive within 1 s",
            type: "invalid_request_error",
            param: null,
            code: "request_timeout"
          }
        })
        expect(body.ms).toBeLessThan(5_000)
      }
    } finally {
      await gateway.stop()
    }
  })
})

describe("a stream cut by the end of the shutdown grace", () => {
  it("ends with an error event, not with what looks like a complete answer", async () => {
    const gateway = await GatewayProcess.start({ GATEWAY_SHUTDOWN_GRACE_SECONDS: "1" })
    // the fake's reply has a handful of chunks: at 600 ms apart it outlasts the grace
    harness.fake.enqueue(Behaviour.slowStream(600))
    const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: viaProviderHeader(harness.fake),
      body: JSON.stringify(chatBody({ stream: true }))
    })
    expect(response.status).toBe(200)
    const exit = gateway.stop("SIGTERM")
    const events = (await response.text()).split("\n\n").filter((event) => event.startsWith("data: "))
    expect(events).not.toContain("data: [DONE]")
    expect(JSON.parse(events.at(-1)?.slice("data: ".length) ?? "")).toEqual({
      error: {
        message: "the gateway is shutting down and stopped before this answer was complete",
        type: "server_error",
        param: null,
        code: "unavailable"
      }
    })
    expect(await exit).toBe(0)
  })
})
