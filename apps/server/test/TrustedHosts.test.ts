/**
 * extensions.md, "Trusted hosts", through the real server. Every host here is on loopback, and
 * every refusal happens before anything is connected to: the fakes count what reaches them.
 */
import { FakeOpenAI } from "@switchyard/fake-providers"
import { createServer } from "node:http"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type Call, call, chatVia } from "./support/Admin.ts"
import { chatBody } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

const { ADMIN_KEY } = GatewayProcess

let fake: FakeOpenAI.FakeOpenAI
/** A webhook on 127.0.0.1 that counts the requests it got. */
let hook: { readonly url: string; readonly requests: () => number; readonly close: () => Promise<void> }

beforeAll(async () => {
  fake = await FakeOpenAI.start()
  let requests = 0
  const server = createServer((_request, response) => {
    requests += 1
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ verdict: true }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  hook = {
    url: `http://127.0.0.1:${port}/verdict`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
})
afterAll(async () => {
  await fake.close()
  await hook.close()
})
beforeEach(() => fake.reset())

const expectRefused = (answer: Call, param: string) => {
  expect(answer.status).toBe(400)
  expect(answer.body.error).toMatchObject({ type: "invalid_request_error", code: "invalid_request", param })
  expect(answer.body.error.message).toContain(`${param}: `)
  expect(answer.body.error.message).toContain("GATEWAY_TRUSTED_HOSTS")
}

const viaHeader = (customHost: string) => ({
  "x-gateway-provider": "openai",
  "x-gateway-custom-host": customHost,
  authorization: "Bearer sk-upstream"
})

const viaConfig = (config: unknown) => ({ "x-gateway-config": JSON.stringify(config) })

const openai = (customHost: string) => ({ provider: "openai", api_key: "sk-upstream", custom_host: customHost })

describe("GATEWAY_TRUSTED_HOSTS empty: loopback is refused too", () => {
  let gateway: GatewayProcess.GatewayProcess
  beforeAll(async () => {
    gateway = await GatewayProcess.start({ GATEWAY_TRUSTED_HOSTS: "" })
  })
  afterAll(() => gateway.stop())

  const chat = (headers: Record<string, string>) => chatVia(gateway.baseUrl, ADMIN_KEY, headers, chatBody())

  it("refuses x-gateway-custom-host on 127.0.0.1 and on localhost, naming the header", async () => {
    const byAddress = await chat(viaHeader(fake.baseUrl))
    expectRefused(byAddress, "x-gateway-custom-host")
    expect(byAddress.body.error.message).toContain("127.0.0.1 is a loopback address")
    const byName = await chat(viaHeader(fake.baseUrl.replace("127.0.0.1", "localhost")))
    expectRefused(byName, "x-gateway-custom-host")
    expect(byName.body.error.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/)
    expect(fake.requests).toHaveLength(0)
  })

  it("refuses a config's custom_host, and a nested target's by its path", async () => {
    expectRefused(await chat(viaConfig(openai(fake.baseUrl))), "config.custom_host")
    const nested = {
      strategy: { mode: "fallback" },
      targets: [{ strategy: { mode: "single" }, targets: [openai("http://[::1]:9/v1")] }, openai(fake.baseUrl)]
    }
    expectRefused(await chat(viaConfig(nested)), "config.targets[0].targets[0].custom_host")
    expect(fake.requests).toHaveLength(0)
  })

  it("refuses a guardrail webhook on 127.0.0.1, which is never called", async () => {
    const config = {
      input_guardrails: [{ "default.webhook": { webhookURL: hook.url }, deny: true }],
      strategy: { mode: "single" },
      targets: [openai(fake.baseUrl)]
    }
    expectRefused(await chat(viaConfig(config)), "config.input_guardrails[0][\"default.webhook\"].webhookURL")
    expect(hook.requests()).toBe(0)
    expect(fake.requests).toHaveLength(0)
  })

  it("refuses a stored config on save (POST and PUT) and an integration and a virtual key on save", async () => {
    const nested = {
      strategy: { mode: "fallback" },
      targets: [{ provider: "openai", api_key: "sk-upstream" }, openai(fake.baseUrl)]
    }
    expectRefused(
      await call(gateway.baseUrl, "POST", "/v1/configs", { body: { name: "n", config: nested } }),
      "config.targets[1].custom_host"
    )
    const saved = await call(gateway.baseUrl, "POST", "/v1/configs", {
      body: { name: "ok", config: { virtual_key: "vk-1" } }
    })
    expect(saved.status).toBe(200)
    const put = await call(gateway.baseUrl, "PUT", `/v1/configs/${saved.body.id}`, {
      body: { config: openai(fake.baseUrl) }
    })
    expectRefused(put, "config.custom_host")
    const integration = await call(gateway.baseUrl, "POST", "/v1/integrations", {
      body: {
        slug: "local",
        provider: "openai",
        api_key: "sk",
        custom_host: fake.baseUrl.replace("127.0.0.1", "localhost")
      }
    })
    expectRefused(integration, "custom_host")
    const virtualKey = await call(gateway.baseUrl, "POST", "/v1/virtual-keys", {
      body: { name: "vk", provider: "openai", api_key: "sk", custom_host: "http://169.254.169.254/v1" }
    })
    expectRefused(virtualKey, "custom_host")
    expect((await call(gateway.baseUrl, "GET", "/v1/integrations")).body.data).toHaveLength(0)
    expect(fake.requests).toHaveLength(0)
  })
})

describe("GATEWAY_TRUSTED_HOSTS left at its default", () => {
  let gateway: GatewayProcess.GatewayProcess
  beforeAll(async () => {
    gateway = await GatewayProcess.start({ GATEWAY_TRUSTED_HOSTS: undefined })
  })
  afterAll(() => gateway.stop())

  const chat = (headers: Record<string, string>) => chatVia(gateway.baseUrl, ADMIN_KEY, headers, chatBody())

  it("calls a model next to the gateway, by address and by the name localhost", async () => {
    expect((await chat(viaHeader(fake.baseUrl))).status).toBe(200)
    expect((await chat(viaHeader(fake.baseUrl.replace("127.0.0.1", "localhost")))).status).toBe(200)
    expect(fake.requests).toHaveLength(2)
  })

  it("still refuses cloud metadata, also written as an IPv4-mapped IPv6 address", async () => {
    expectRefused(await chat(viaHeader("http://169.254.169.254/latest")), "x-gateway-custom-host")
    expectRefused(await chat(viaConfig(openai("http://[::ffff:169.254.169.254]/v1"))), "config.custom_host")
    expectRefused(await chat(viaConfig(openai("http://10.0.0.1:8000/v1"))), "config.custom_host")
  })
})

describe("stored objects are checked again when used", () => {
  it("an integration and a config saved under the default list are refused after a restart with an empty one", async () => {
    const first = await GatewayProcess.start()
    const integration = await call(first.baseUrl, "POST", "/v1/integrations", {
      body: { slug: "kept", provider: "openai", api_key: "sk-kept", custom_host: fake.baseUrl }
    })
    const config = await call(first.baseUrl, "POST", "/v1/configs", {
      body: { name: "kept", config: openai(fake.baseUrl) }
    })
    expect([integration.status, config.status]).toEqual([200, 200])
    await first.stop()
    const second = await GatewayProcess.start({ GATEWAY_DATA_DIR: first.dataDir, GATEWAY_TRUSTED_HOSTS: "" })
    try {
      const viaSlug = await chatVia(second.baseUrl, ADMIN_KEY, { "x-gateway-provider": "@kept" }, chatBody())
      expectRefused(viaSlug, "custom_host")
      expect(viaSlug.body.error.message).toContain("integration @kept")
      const viaStored = await chatVia(
        second.baseUrl,
        ADMIN_KEY,
        { "x-gateway-config": String(config.body.id) },
        chatBody()
      )
      expectRefused(viaStored, "config.custom_host")
      expect(fake.requests).toHaveLength(0)
    } finally {
      await second.stop()
    }
  })

  it("a GATEWAY_TRUSTED_HOSTS entry that does not parse stops start-up, saying which", async () => {
    await expect(GatewayProcess.start({ GATEWAY_TRUSTED_HOSTS: "localhost,not a host" })).rejects.toThrow(
      /GATEWAY_TRUSTED_HOSTS: "not a host"/
    )
  })
})
