import { Behaviour } from "@switchyard/fake-providers"
import { describe, expect, it } from "vitest"
import { chatBody, json, post, sseData, useGatewayAndFake } from "./support/Fixtures.ts"
import { ADMIN_KEY } from "./support/GatewayProcess.ts"

const harness = useGatewayAndFake()

describe("upstream failures", () => {
  it("passes a provider's 429 through with its body and Retry-After", async () => {
    const error = {
      error: { message: "Rate limit reached", type: "requests", param: null, code: "rate_limit_exceeded" }
    }
    harness.fake.enqueue(Behaviour.json(429, error, { "retry-after": "7" }))
    const response = await post(harness, "/v1/chat/completions", chatBody())
    expect(response.status).toBe(429)
    expect(response.headers.get("retry-after")).toBe("7")
    expect(response.headers.get("x-gateway-trace-id")).toBeTruthy()
    expect(await json(response)).toEqual(error)
  })

  it("wraps a provider error that is not OpenAI-shaped in the envelope, keeping its status", async () => {
    harness.fake.enqueue(Behaviour.json(503, "<html>overloaded</html>", { "content-type": "text/html" }))
    const response = await post(harness, "/v1/chat/completions", chatBody())
    expect(response.status).toBe(503)
    const body = await json(response)
    expect(body.error.message).toContain("overloaded")
    expect(body.error.type).toBe("upstream_error")
  })

  it("answers 502 when the provider drops the connection", async () => {
    harness.fake.enqueue(Behaviour.resetConnection())
    const response = await post(harness, "/v1/chat/completions", chatBody())
    expect(response.status).toBe(502)
    expect((await json(response)).error.code).toBe("bad_gateway")
  })

  it("answers 502 when nothing listens at the provider's address", async () => {
    const response = await post(harness, "/v1/chat/completions", chatBody(), {
      "content-type": "application/json",
      "x-gateway-api-key": ADMIN_KEY,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": "http://127.0.0.1:9/v1",
      authorization: "Bearer sk"
    })
    expect(response.status).toBe(502)
  })

  it("ends a stream cut mid-way with an error event and no [DONE]", async () => {
    harness.fake.enqueue(Behaviour.cutStream(2))
    const response = await post(harness, "/v1/chat/completions", chatBody({ stream: true }))
    expect(response.status).toBe(200)
    const events = sseData(await response.text())
    expect(events).not.toContain("[DONE]")
    const last = JSON.parse(events.at(-1) ?? "{}")
    expect(last.error.message).toMatch(/cut/)
    expect(events.length).toBe(3)
  })

  it("passes an error status through for a streamed request", async () => {
    harness.fake.enqueue(
      Behaviour.json(400, {
        error: { message: "bad model", type: "invalid_request_error", param: "model", code: null }
      })
    )
    const response = await post(harness, "/v1/chat/completions", chatBody({ stream: true }))
    expect(response.status).toBe(400)
    expect((await json(response)).error.param).toBe("model")
  })
})
