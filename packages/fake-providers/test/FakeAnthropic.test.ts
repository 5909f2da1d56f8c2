import { Behaviour, FakeAnthropic } from "@switchyard/fake-providers"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"

let fake: FakeAnthropic.FakeAnthropic
const headers = { "x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01", "content-type": "application/json" }
const valid = { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "hello there" }] }

const post = (body: unknown, extra: Record<string, string> = {}, path = "/v1/messages") =>
  fetch(`${fake.baseUrl}${path}`, {
    method: "POST",
    headers: { ...headers, ...extra },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })

const refusal = async (response: Response) => ({ status: response.status, body: await response.json() })
const invalid = (message: string) => ({ type: "error", error: { type: "invalid_request_error", message } })

beforeAll(async () => {
  fake = await FakeAnthropic.start({ apiKey: "sk-ant-test" })
})
afterEach(() => fake.reset())
afterAll(() => fake.close())

describe("FakeAnthropic checks the request", () => {
  it("answers a valid request with a Message object", async () => {
    const response = await post(valid)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      id: "msg_fake_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "text", text: "echo: hello there" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 2, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
    })
  })

  it("refuses a wrong path with 404", async () => {
    expect((await post(valid, {}, "/v1/chat/completions")).status).toBe(404)
  })

  it("refuses a missing or wrong x-api-key with 401", async () => {
    expect(await refusal(await post(valid, { "x-api-key": "nope" }))).toEqual({
      status: 401,
      body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }
    })
  })

  it("refuses a missing anthropic-version", async () => {
    const response = await fetch(`${fake.baseUrl}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "sk-ant-test", "content-type": "application/json" },
      body: JSON.stringify(valid)
    })
    expect(await refusal(response)).toEqual({ status: 400, body: invalid("anthropic-version: header is required") })
  })

  it("refuses a body without max_tokens", async () => {
    expect(await refusal(await post({ ...valid, max_tokens: undefined }))).toEqual({
      status: 400,
      body: invalid("max_tokens: Field required")
    })
  })

  it("refuses a system message among the messages", async () => {
    const { body } = await refusal(await post({ ...valid, messages: [{ role: "system", content: "x" }] }))
    expect(body).toMatchObject({ error: { message: expect.stringMatching(/^messages: Unexpected role "system"/) } })
  })

  it("refuses OpenAI members Anthropic does not know", async () => {
    expect(await refusal(await post({ ...valid, n: 1 }))).toEqual({
      status: 400,
      body: invalid("n: Extra inputs are not permitted")
    })
  })

  it("refuses a tool use left without its tool result", async () => {
    const messages = [
      { role: "user", content: "weather?" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "w", input: {} }] },
      { role: "user", content: "and?" }
    ]
    const { body } = await refusal(await post({ ...valid, messages }))
    expect(body).toMatchObject({
      error: { message: expect.stringMatching(/`tool_use` ids were found without `tool_result` blocks/) }
    })
  })

  it("refuses an image media type Anthropic does not read", async () => {
    const image = { type: "image", source: { type: "base64", media_type: "image/bmp", data: "AAAA" } }
    const { status } = await refusal(await post({ ...valid, messages: [{ role: "user", content: [image] }] }))
    expect(status).toBe(400)
  })

  it("refuses a thinking budget not below max_tokens", async () => {
    const { body } = await refusal(await post({ ...valid, thinking: { type: "enabled", budget_tokens: 2048 } }))
    expect(body).toEqual(invalid("`max_tokens` must be greater than `thinking.budget_tokens`"))
  })
})

describe("FakeAnthropic streams", () => {
  const eventsOf = async (response: Response) =>
    (await response.text()).split("\n\n").filter((event) => event !== "").map((event) => event.split("\n")[0])

  it("streams the documented event sequence", async () => {
    expect(await eventsOf(await post({ ...valid, stream: true }))).toEqual([
      "event: message_start",
      "event: content_block_start",
      "event: ping",
      "event: content_block_delta",
      "event: content_block_delta",
      "event: content_block_delta",
      "event: content_block_stop",
      "event: message_delta",
      "event: message_stop"
    ])
  })

  it("sends an error event when scripted to", async () => {
    fake.enqueue(FakeAnthropic.streamError(1, "overloaded_error", "Overloaded"))
    const text = await (await post({ ...valid, stream: true })).text()
    expect(text).toContain(
      "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"
    )
  })

  it("plays the shared behaviours, such as a scripted JSON answer", async () => {
    fake.enqueue(Behaviour.json(500, { type: "error", error: { type: "api_error", message: "boom" } }))
    expect((await post(valid)).status).toBe(500)
  })
})

describe("FakeAnthropic counts tokens (POST /v1/messages/count_tokens)", () => {
  const counted = {
    model: "claude-sonnet-4-5",
    system: "Be brief.",
    messages: [{ role: "user", content: "hello there" }]
  }

  it("answers { input_tokens } with the fake's count: words of the texts, three per message", async () => {
    const response = await post(counted, {}, "/v1/messages/count_tokens")
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ input_tokens: 2 + 2 + 3 })
    expect(fake.requests.at(-1)?.path).toBe("/v1/messages/count_tokens")
  })

  it("refuses the generation members and a body without messages, as Anthropic does", async () => {
    expect(await refusal(await post({ ...counted, max_tokens: 5 }, {}, "/v1/messages/count_tokens"))).toEqual({
      status: 400,
      body: invalid("max_tokens: Extra inputs are not permitted")
    })
    expect(await refusal(await post({ model: "claude-sonnet-4-5" }, {}, "/v1/messages/count_tokens"))).toEqual({
      status: 400,
      body: invalid("messages: Field required")
    })
  })

  it("answers a queued JSON behaviour, such as an error, in place of the count", async () => {
    fake.enqueue(FakeAnthropic.error(529, "overloaded_error", "Overloaded"))
    const response = await post(counted, {}, "/v1/messages/count_tokens")
    expect(await refusal(response)).toEqual({
      status: 529,
      body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
    })
  })
})
