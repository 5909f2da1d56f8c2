import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createKey } from "./support/Admin.ts"
import { chatBody, sseData, useGatewayAndFake } from "./support/Fixtures.ts"
import { ADMIN_KEY } from "./support/GatewayProcess.ts"

const harness = useGatewayAndFake()
let run = 0
beforeAll(() => {
  run = Date.now()
})
afterAll(() => undefined)

/** A cached config pointing at the fake; `tag` keeps tests from sharing entries. */
const cachedConfig = (mode: "simple" | "semantic" = "simple") =>
  JSON.stringify({
    provider: "openai",
    api_key: "sk-cache",
    custom_host: harness.fake.baseUrl,
    cache: { mode, max_age: 60 }
  })

const send = async (body: unknown, headers: Record<string, string> = {}, key = ADMIN_KEY) => {
  const response = await fetch(`${harness.gateway.baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": key,
      "x-gateway-config": cachedConfig(),
      ...headers
    },
    body: JSON.stringify(body)
  })
  return { status: response.status, cache: response.headers.get("x-gateway-cache-status"), text: await response.text() }
}

const question = (tag: string) => chatBody({ messages: [{ role: "user", content: `question ${tag} ${run}` }] })

describe("cache through the server", () => {
  it("answers a repeat from the cache without calling the provider", async () => {
    const first = await send(question("a"))
    const second = await send(question("a"))
    expect(first.cache).toBe("MISS")
    expect(second.cache).toBe("HIT")
    expect(JSON.parse(second.text).choices[0].message.content).toBe(JSON.parse(first.text).choices[0].message.content)
    expect(harness.fake.requests).toHaveLength(1)
  })

  it("ignores key order in the request", async () => {
    await send({ messages: [{ role: "user", content: `order ${run}` }], model: "gpt-4o-mini", temperature: 0.5 })
    const again = await send({
      temperature: 0.5,
      model: "gpt-4o-mini",
      messages: [{ content: `order ${run}`, role: "user" }]
    })
    expect(again.cache).toBe("HIT")
  })

  it("keeps namespaces and workspaces apart", async () => {
    await send(question("b"), { "x-gateway-cache-namespace": "team-1" })
    expect((await send(question("b"), { "x-gateway-cache-namespace": "team-2" })).cache).toBe("MISS")
    const other = await createKey(harness.gateway.baseUrl, ["completions"], { workspace: `ws-cache-${run}` })
    expect((await send(question("b"), { "x-gateway-cache-namespace": "team-1" }, other)).cache).toBe("MISS")
    expect((await send(question("b"), { "x-gateway-cache-namespace": "team-1" })).cache).toBe("HIT")
  })

  it("refreshes on x-gateway-cache-force-refresh", async () => {
    await send(question("c"))
    const refreshed = await send(question("c"), { "x-gateway-cache-force-refresh": "true" })
    expect(refreshed.cache).toBe("REFRESH")
    expect(harness.fake.requests).toHaveLength(2)
  })

  it("replays a cached answer as a stream, and stores a streamed answer for plain requests", async () => {
    await send(question("d"))
    const replay = await send({ ...question("d"), stream: true })
    expect(replay.cache).toBe("HIT")
    expect(sseData(replay.text).at(-1)).toBe("[DONE]")
    const streamed = await send({ ...question("e"), stream: true })
    expect(streamed.cache).toBe("MISS")
    expect((await send(question("e"))).cache).toBe("HIT")
    expect(harness.fake.requests).toHaveLength(2)
  })

  it("finds a near-duplicate question semantically", async () => {
    const ask = (content: string) =>
      send(chatBody({ messages: [{ role: "user", content }] }), { "x-gateway-config": cachedConfig("semantic") })
    await ask(`What is the capital city of France ${run}?`)
    const near = await ask(`What is the capital city of France ${run} ?`)
    expect(near.cache).toBe("SEMANTIC HIT")
    const unrelated = await ask(`How do I bake sourdough bread at home ${run}?`)
    expect(unrelated.cache).toBe("SEMANTIC MISS")
  })
})
