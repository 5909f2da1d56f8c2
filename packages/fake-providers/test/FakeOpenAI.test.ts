import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { chat, postTo, sseData } from "./OpenAIRequests.ts"

let fake: FakeOpenAI.FakeOpenAI
const post = (path: string, body: unknown, init: RequestInit = {}) => postTo(fake)(path, body, init)

beforeAll(async () => {
  fake = await FakeOpenAI.start()
})
afterEach(() => fake.reset())
afterAll(() => fake.close())

describe("FakeOpenAI", () => {
  it("listens on 127.0.0.1 and exposes an OpenAI base URL", () => {
    expect(fake.baseUrl).toBe(`http://127.0.0.1:${fake.port}/v1`)
  })

  it("records method, path, lower-case headers and the parsed JSON body", async () => {
    await post("/chat/completions", chat, { headers: { "X-Custom": "yes", "content-type": "application/json" } })
    expect(fake.requests).toHaveLength(1)
    expect(fake.requests[0]).toMatchObject({
      method: "POST",
      path: "/v1/chat/completions",
      headers: { "x-custom": "yes", "content-type": "application/json" },
      body: chat
    })
  })

  it("records a body that is not JSON as its raw text", async () => {
    await fetch(`${fake.baseUrl}/chat/completions`, { method: "POST", body: "not json" })
    expect(fake.requests[0]?.body).toBe("not json")
  })

  it("answers unknown paths with 404 in OpenAI's error shape", async () => {
    const response = await fetch(`${fake.baseUrl}/nowhere`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({
      error: {
        message: "Unknown request URL: GET /v1/nowhere.",
        type: "invalid_request_error",
        param: null,
        code: "unknown_url"
      }
    })
  })

  it("reset clears requests, queue and default", async () => {
    await post("/chat/completions", chat)
    fake.enqueue(Behaviour.json(500, {}))
    fake.setDefault(Behaviour.json(503, {}))
    fake.reset()
    expect(fake.requests).toHaveLength(0)
    expect((await post("/chat/completions", chat)).status).toBe(200)
  })

  it("close ends stalled requests and stops listening", async () => {
    const other = await FakeOpenAI.start()
    other.setDefault(Behaviour.stall())
    const stalled = fetch(`${other.baseUrl}/chat/completions`, { method: "POST", body: "{}" })
    await waitFor(() => other.requests.length === 1)
    await other.close()
    await expect(stalled).rejects.toThrow()
    await expect(fetch(`${other.baseUrl}/chat/completions`, { method: "POST", body: "{}" })).rejects.toThrow()
  })
})

describe("reply", () => {
  it("answers a chat completion echoing the last user message, with word-counted usage", async () => {
    const body = await (await post("/chat/completions", chat)).json()
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content: "echo: hello there" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 }
    })
  })

  it("streams role, content deltas, finish and usage chunks, then [DONE]", async () => {
    const response = await post("/chat/completions", { ...chat, stream: true, stream_options: { include_usage: true } })
    expect(response.headers.get("content-type")).toContain("text/event-stream")
    const events = sseData(await response.text())
    expect(events.at(-1)).toBe("[DONE]")
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event))
    expect(chunks[0].choices[0].delta.role).toBe("assistant")
    const content = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")
    expect(content).toBe("echo: hello there")
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(1)
    expect(chunks.at(-2).choices[0].finish_reason).toBe("stop")
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 3 } })
  })

  it("streams no usage chunk unless stream_options.include_usage", async () => {
    const events = sseData(await (await post("/chat/completions", { ...chat, stream: true })).text())
    expect(events.slice(0, -1).every((event) => JSON.parse(event).choices.length === 1)).toBe(true)
  })

  it("calls the first tool with {} arguments when the request has tools", async () => {
    const tools = [{ type: "function", function: { name: "get_weather" } }, {
      type: "function",
      function: { name: "other" }
    }]
    const body = await (await post("/chat/completions", { ...chat, tools })).json()
    expect(body).toMatchObject({
      choices: [{
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ type: "function", function: { name: "get_weather", arguments: "{}" } }]
        },
        finish_reason: "tool_calls"
      }]
    })
  })

  it("answers in text when tool_choice is none", async () => {
    const tools = [{ type: "function", function: { name: "get_weather" } }]
    const body = await (await post("/chat/completions", { ...chat, tools, tool_choice: "none" })).json()
    expect(body).toMatchObject({ choices: [{ message: { content: "echo: hello there" }, finish_reason: "stop" }] })
  })

  it("streams a tool call as indexed tool_call deltas", async () => {
    const tools = [{ type: "function", function: { name: "get_weather" } }]
    const events = sseData(await (await post("/chat/completions", { ...chat, tools, stream: true })).text())
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event))
    const calls = chunks.flatMap((chunk) => chunk.choices[0].delta.tool_calls ?? [])
    expect(calls.every((call: { index: number }) => call.index === 0)).toBe(true)
    expect(calls[0].function.name).toBe("get_weather")
    expect(calls.map((call: { function: { arguments: string } }) => call.function.arguments).join("")).toBe("{}")
    expect(chunks.at(-1).choices[0].finish_reason).toBe("tool_calls")
  })

  it("answers a text completion", async () => {
    const body = await (await post("/completions", { model: "gpt-3.5-turbo-instruct", prompt: "say hi" })).json()
    expect(body).toMatchObject({
      object: "text_completion",
      choices: [{ text: "echo: say hi", finish_reason: "stop" }]
    })
  })

  it("answers one deterministic embedding per input", async () => {
    const first = await (await post("/embeddings", { model: "text-embedding-3-small", input: ["a", "b c"] })).json()
    const again = await (await post("/embeddings", { model: "text-embedding-3-small", input: "a" })).json()
    expect(first).toMatchObject({ object: "list", data: [{ object: "embedding", index: 0 }, { index: 1 }] })
    const [a, bc] = embeddingsOf(first)
    expect(a).toHaveLength(8)
    expect(embeddingsOf(again)).toEqual([a])
    expect(bc).not.toEqual(a)
  })
})
const embeddingsOf = (list: unknown): Array<unknown> => {
  const data = typeof list === "object" && list !== null && "data" in list && Array.isArray(list.data) ? list.data : []
  return data.map((item: unknown) =>
    typeof item === "object" && item !== null && "embedding" in item ? item.embedding : undefined
  )
}

const waitFor = async (condition: () => boolean): Promise<void> => {
  for (let attempt = 0; attempt < 100 && !condition(); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
