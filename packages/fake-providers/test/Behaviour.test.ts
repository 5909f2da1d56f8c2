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

describe("behaviours", () => {
  it("json answers any status, body and headers, for the next request only", async () => {
    fake.enqueue(
      Behaviour.json(429, { error: { message: "slow down" } }, { "retry-after": "2", "retry-after-ms": "2000" })
    )
    const limited = await post("/chat/completions", chat)
    expect(limited.status).toBe(429)
    expect(limited.headers.get("retry-after")).toBe("2")
    expect(limited.headers.get("retry-after-ms")).toBe("2000")
    expect(await limited.json()).toEqual({ error: { message: "slow down" } })
    expect((await post("/chat/completions", chat)).status).toBe(200)
  })

  it("queued behaviours apply first in, first out", async () => {
    fake.enqueue(Behaviour.json(500, {}))
    fake.enqueue(Behaviour.json(502, {}))
    expect((await post("/chat/completions", chat)).status).toBe(500)
    expect((await post("/chat/completions", chat)).status).toBe(502)
  })

  it("setDefault applies to every request once the queue is empty", async () => {
    fake.setDefault(Behaviour.json(503, {}))
    expect((await post("/chat/completions", chat)).status).toBe(503)
    expect((await post("/chat/completions", chat)).status).toBe(503)
  })

  it("stall never answers until the client gives up", async () => {
    fake.enqueue(Behaviour.stall())
    await expect(post("/chat/completions", chat, { signal: AbortSignal.timeout(200) })).rejects.toThrow()
    expect((await post("/chat/completions", chat)).status).toBe(200)
  })

  it("delay waits before behaving as the inner behaviour", async () => {
    fake.enqueue(Behaviour.delay(150, Behaviour.json(201, {})))
    const started = performance.now()
    const response = await post("/chat/completions", chat)
    expect(response.status).toBe(201)
    expect(performance.now() - started).toBeGreaterThanOrEqual(140)
  })

  it("resetConnection destroys the socket without answering", async () => {
    fake.enqueue(Behaviour.resetConnection())
    await expect(post("/chat/completions", chat)).rejects.toThrow()
  })

  it("cutStream sends that many chunks, then breaks the stream", async () => {
    fake.enqueue(Behaviour.cutStream(2))
    const response = await post("/chat/completions", { ...chat, stream: true })
    expect(response.status).toBe(200)
    const received: Array<string> = []
    const decoder = new TextDecoder()
    const read = async () => {
      for await (const part of response.body ?? []) received.push(decoder.decode(part, { stream: true }))
    }
    await expect(read()).rejects.toThrow()
    expect(sseData(received.join(""))).toHaveLength(2)
    expect(fake.requests[0]?.chunksWrittenAt).toHaveLength(2)
  })

  it("slowStream spaces the chunks and records when each was written", async () => {
    fake.enqueue(Behaviour.slowStream(40))
    const response = await post("/chat/completions", chat)
    const events = sseData(await response.text())
    expect(events.at(-1)).toBe("[DONE]")
    const written = fake.requests[0]?.chunksWrittenAt ?? []
    expect(written).toHaveLength(events.length)
    const gaps = written.slice(1).map((time, index) => time - (written[index] ?? time))
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(35)
  })
})
