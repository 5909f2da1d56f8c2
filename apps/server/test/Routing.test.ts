import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { call, chatVia } from "./support/Admin.ts"
import { chatBody, sseData } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

let gateway: GatewayProcess.GatewayProcess
const fakes: Array<FakeOpenAI.FakeOpenAI> = []
const fake = (index: number) => {
  const found = fakes[index]
  if (found === undefined) throw new Error(`no fake ${index}`)
  return found
}

beforeAll(async () => {
  for (let i = 0; i < 3; i++) fakes.push(await FakeOpenAI.start())
  gateway = await GatewayProcess.start()
})
beforeEach(() => fakes.forEach((f) => f.reset()))
afterAll(async () => {
  await gateway?.stop()
  await Promise.all(fakes.map((f) => f.close()))
})

/** A leaf target pointing at fake `index`, with a key naming it. */
const leaf = (index: number, extra: Record<string, unknown> = {}) => ({
  provider: "openai",
  api_key: `sk-fake-${index}`,
  custom_host: fake(index).baseUrl,
  ...extra
})
const dead = { provider: "openai", api_key: "sk-dead", custom_host: "http://127.0.0.1:9/v1" }

const withConfig = (config: unknown, body: unknown = chatBody(), headers: Record<string, string> = {}) =>
  chatVia(gateway.baseUrl, GatewayProcess.ADMIN_KEY, { "x-gateway-config": JSON.stringify(config), ...headers }, body)

const headerOf = async (config: unknown, name: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
      "x-gateway-config": JSON.stringify(config),
      ...headers
    },
    body: JSON.stringify(chatBody())
  })
  await response.text()
  return { status: response.status, value: response.headers.get(name) }
}

describe("fallback", () => {
  it("moves to the next target when the first fails, and says which answered", async () => {
    fake(0).enqueue(Behaviour.json(500, { error: { message: "boom" } }))
    const config = { strategy: { mode: "fallback" }, targets: [leaf(0), leaf(1)] }
    const { status, value } = await headerOf(config, "x-gateway-last-used-option-index")
    expect(status).toBe(200)
    expect(value).toBe("config.targets[1]")
    expect(fake(0).requests).toHaveLength(1)
    expect(fake(1).requests).toHaveLength(1)
  })

  it("moves on when the first target cannot be reached", async () => {
    const answer = await withConfig({ strategy: { mode: "fallback" }, targets: [dead, leaf(1)] })
    expect(answer.status).toBe(200)
    expect(fake(1).requests).toHaveLength(1)
  })

  it("falls back only on the listed status codes", async () => {
    fake(0).enqueue(Behaviour.json(500, { error: { message: "boom" } }))
    const answer = await withConfig({
      strategy: { mode: "fallback", on_status_codes: [429] },
      targets: [leaf(0), leaf(1)]
    })
    expect(answer.status).toBe(500)
    expect(fake(1).requests).toHaveLength(0)
  })

  it("returns the last answer when every target fails", async () => {
    fake(0).enqueue(Behaviour.json(500, { error: { message: "first" } }))
    fake(1).enqueue(Behaviour.json(503, { error: { message: "second" } }))
    const answer = await withConfig({ strategy: { mode: "fallback" }, targets: [leaf(0), leaf(1)] })
    expect(answer.status).toBe(503)
    expect(answer.body.error.message).toBe("second")
  })

  it("falls back for a streamed request that fails before its first byte", async () => {
    fake(0).enqueue(Behaviour.json(502, { error: { message: "down" } }))
    const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
        "x-gateway-config": JSON.stringify({ strategy: { mode: "fallback" }, targets: [leaf(0), leaf(1)] })
      },
      body: JSON.stringify(chatBody({ stream: true }))
    })
    expect(response.status).toBe(200)
    expect(sseData(await response.text()).at(-1)).toBe("[DONE]")
  })

  it("does not fall back once a stream has begun: a cut stream ends with an error event", async () => {
    fake(0).enqueue(Behaviour.cutStream(2))
    const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
        "x-gateway-config": JSON.stringify({ strategy: { mode: "fallback" }, targets: [leaf(0), leaf(1)] })
      },
      body: JSON.stringify(chatBody({ stream: true }))
    })
    const events = sseData(await response.text())
    expect(events).not.toContain("[DONE]")
    expect(fake(1).requests).toHaveLength(0)
  })
})

describe("loadbalance", () => {
  it("never chooses a target of weight 0", async () => {
    const config = { strategy: { mode: "loadbalance" }, targets: [leaf(0, { weight: 1 }), leaf(1, { weight: 0 })] }
    for (let i = 0; i < 20; i++) expect((await withConfig(config)).status).toBe(200)
    expect(fake(0).requests).toHaveLength(20)
    expect(fake(1).requests).toHaveLength(0)
  })

  it("spreads requests in proportion to weight", async () => {
    const config = { strategy: { mode: "loadbalance" }, targets: [leaf(0, { weight: 1 }), leaf(1, { weight: 3 })] }
    const draws = 400
    for (let i = 0; i < draws; i++) await withConfig(config)
    // expected 100 and 300; 5 standard deviations of the binomial (sd ≈ 8.7) as the bound
    expect(Math.abs(fake(0).requests.length - 100)).toBeLessThan(44)
    expect(fake(0).requests.length + fake(1).requests.length).toBe(draws)
  })
})

describe("conditional", () => {
  const config = () => ({
    strategy: {
      mode: "conditional",
      conditions: [
        {
          query: { "metadata.plan": "pro", $or: [{ "params.model": "gpt-4o" }, { "params.model": { $regex: "^o" } }] },
          then: "pro"
        },
        { query: { "params.temperature": { $gte: 1 } }, then: "warm" }
      ],
      default: "basic"
    },
    targets: [{ name: "pro", ...leaf(0) }, { name: "warm", ...leaf(1) }, { name: "basic", ...leaf(2) }]
  })

  it("routes on metadata and params, every sibling of $or counting", async () => {
    await withConfig(config(), chatBody({ model: "o3-mini" }), {
      "x-gateway-metadata": JSON.stringify({ plan: "pro" })
    })
    expect(fake(0).requests).toHaveLength(1)
    await withConfig(config(), chatBody({ model: "o3-mini" }), {
      "x-gateway-metadata": JSON.stringify({ plan: "free" })
    })
    expect(fake(2).requests).toHaveLength(1)
  })

  it("tries conditions in order and uses the default when none matches", async () => {
    await withConfig(config(), chatBody({ temperature: 1.5 }))
    expect(fake(1).requests).toHaveLength(1)
    await withConfig(config(), chatBody({ temperature: 0.2 }))
    expect(fake(2).requests).toHaveLength(1)
  })

  it("rejects a condition naming a target that does not exist, before any call", async () => {
    const bad = { ...config(), strategy: { ...config().strategy, default: "nope" } }
    const answer = await withConfig(bad)
    expect(answer.status).toBe(400)
    expect(fakes.every((f) => f.requests.length === 0)).toBe(true)
  })
})

describe("nesting", () => {
  it("runs a tree three levels deep and names the deepest target that answered", async () => {
    fake(0).enqueue(Behaviour.json(500, { error: { message: "boom" } }))
    const config = {
      strategy: { mode: "fallback" },
      api_key: "sk-inherited",
      targets: [
        {
          strategy: { mode: "loadbalance" },
          targets: [{
            strategy: { mode: "fallback" },
            targets: [leaf(0), { provider: "openai", custom_host: fake(1).baseUrl }]
          }]
        },
        leaf(2)
      ]
    }
    const { status, value } = await headerOf(config, "x-gateway-last-used-option-index")
    expect(status).toBe(200)
    expect(value).toBe("config.targets[0].targets[0].targets[1]")
    expect(fake(1).requests[0]?.headers.authorization).toBe("Bearer sk-inherited")
  })
})

describe("retry", () => {
  it("retries on 503 and reports the retries made", async () => {
    fake(0).enqueue(Behaviour.json(503, { error: { message: "busy" } }))
    fake(0).enqueue(Behaviour.json(503, { error: { message: "busy" } }))
    const { status, value } = await headerOf({ ...leaf(0), retry: { attempts: 3 } }, "x-gateway-retry-attempt-count")
    expect(status).toBe(200)
    expect(value).toBe("2")
    expect(fake(0).requests).toHaveLength(3)
  })

  it("reports the retries also when every attempt failed", async () => {
    for (let i = 0; i < 3; i++) fake(0).enqueue(Behaviour.json(500, { error: { message: "down" } }))
    const { status, value } = await headerOf({ ...leaf(0), retry: { attempts: 2 } }, "x-gateway-retry-attempt-count")
    expect(status).toBe(500)
    expect(value).toBe("2")
    expect(fake(0).requests).toHaveLength(3)
  })

  it("honours retry-after-ms when asked to", async () => {
    fake(0).enqueue(Behaviour.json(429, { error: { message: "slow down" } }, { "retry-after-ms": "50" }))
    const answer = await withConfig({ ...leaf(0), retry: { attempts: 1, use_retry_after_headers: true } })
    expect(answer.status).toBe(200)
    expect(fake(0).requests).toHaveLength(2)
  })

  it("applies a parent's retry to each leaf, never around the whole strategy", async () => {
    for (let i = 0; i < 3; i++) fake(0).enqueue(Behaviour.json(500, { error: { message: "down" } }))
    const config = { retry: { attempts: 2 }, strategy: { mode: "fallback" }, targets: [leaf(0), leaf(1)] }
    expect((await withConfig(config)).status).toBe(200)
    expect(fake(0).requests).toHaveLength(3)
    expect(fake(1).requests).toHaveLength(1)
  })
})

describe("timeouts", () => {
  it("answers 408 when the provider does not answer in time", async () => {
    fake(0).enqueue(Behaviour.stall())
    const answer = await withConfig({ ...leaf(0), request_timeout: 200 })
    expect(answer.status).toBe(408)
  })

  it("takes the timeout from x-gateway-request-timeout too, and falls back on it", async () => {
    fake(0).enqueue(Behaviour.stall())
    const answer = await withConfig({ strategy: { mode: "fallback" }, targets: [leaf(0), leaf(1)] }, chatBody(), {
      "x-gateway-request-timeout": "200"
    })
    expect(answer.status).toBe(200)
    expect(fake(1).requests).toHaveLength(1)
  })
})

describe("circuit breaker", () => {
  it("opens after the failure threshold and then answers 503 without calling the target", async () => {
    const target = {
      ...leaf(0, { api_key: `sk-cb-${Date.now()}` }),
      cb_config: { failure_threshold: 2, cooldown_interval: 30_000 }
    }
    for (let i = 0; i < 2; i++) fake(0).enqueue(Behaviour.json(500, { error: { message: "down" } }))
    expect((await withConfig(target)).status).toBe(500)
    expect((await withConfig(target)).status).toBe(500)
    const open = await withConfig(target)
    expect(open.status).toBe(503)
    expect(fake(0).requests).toHaveLength(2)
  })

  it("lets fallback skip an open target", async () => {
    const broken = {
      ...leaf(0, { api_key: `sk-cb-skip-${Date.now()}` }),
      cb_config: { failure_threshold: 1, cooldown_interval: 30_000 }
    }
    fake(0).enqueue(Behaviour.json(500, { error: { message: "down" } }))
    const config = { strategy: { mode: "fallback" }, targets: [broken, leaf(1)] }
    expect((await withConfig(config)).status).toBe(200)
    expect((await withConfig(config)).status).toBe(200)
    expect(fake(0).requests).toHaveLength(1)
    expect(fake(1).requests).toHaveLength(2)
  })
})

describe("headers", () => {
  it("names the provider that answered", async () => {
    const { value } = await headerOf({ strategy: { mode: "fallback" }, targets: [dead, leaf(1)] }, "x-gateway-provider")
    expect(value).toBe("openai")
  })

  it("rejects an unknown strategy field as bad input", async () => {
    const answer = await call(gateway.baseUrl, "POST", "/v1/chat/completions", {
      headers: { "x-gateway-config": JSON.stringify({ strategy: { mode: "fallback", order: 1 }, targets: [leaf(0)] }) },
      body: chatBody()
    })
    expect(answer.status).toBe(400)
    expect(answer.body.error.param).toBe("config.strategy.order")
  })
})
