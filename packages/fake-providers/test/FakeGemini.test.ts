import { FakeGemini } from "@switchyard/fake-providers"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"

let fake: FakeGemini.FakeGemini
beforeAll(async () => {
  fake = await FakeGemini.start({ apiKey: "k" })
})
afterEach(() => fake.reset())
afterAll(() => fake.close())

const body = { contents: [{ role: "user", parts: [{ text: "hi there" }] }] }
const post = (path: string, payload: unknown, key = "k") =>
  fetch(`${fake.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": key },
    body: JSON.stringify(payload)
  })

describe("FakeGemini", () => {
  it("answers generateContent with a GenerateContentResponse", async () => {
    const response = await post("/v1beta/models/gemini-2.5-flash:generateContent", body)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      candidates: [{ content: { parts: [{ text: "You said: hi there" }], role: "model" }, finishReason: "STOP" }],
      modelVersion: "gemini-2.5-flash"
    })
  })

  it("refuses a wrong key with Google's 400", async () => {
    const response = await post("/v1beta/models/m:generateContent", body, "nope")
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } })
  })

  it("refuses fields outside the documented request", async () => {
    const response = await post("/v1beta/models/m:generateContent", { ...body, temperature: 1 })
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain("Unknown name")
  })

  it("refuses JSON Schema keywords Gemini does not accept in parameters", async () => {
    const tools = [{
      functionDeclarations: [{ name: "f", parameters: { type: "object", additionalProperties: false } }]
    }]
    const response = await post("/v1beta/models/m:generateContent", { ...body, tools })
    expect(response.status).toBe(400)
  })

  it("streams SSE events with alt=sse", async () => {
    const response = await post("/v1beta/models/m:streamGenerateContent?alt=sse", body)
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    const events = (await response.text()).split("\r\n\r\n").filter((event) => event.startsWith("data: "))
    expect(events).toHaveLength(2)
  })
})
