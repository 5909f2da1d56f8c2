import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chatBody, json, sseData } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

let fake: FakeOpenAI.FakeOpenAI
beforeAll(async () => {
  fake = await FakeOpenAI.start()
})
afterAll(() => fake.close())

const chat = (gateway: GatewayProcess.GatewayProcess, apiKey: string, body: unknown = chatBody()) =>
  fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": apiKey,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": fake.baseUrl,
      authorization: "Bearer sk"
    },
    body: JSON.stringify(body)
  })

describe("server lifecycle", () => {
  it("answers /health, /v1/openapi.json and /docs without a key", async () => {
    const gateway = await GatewayProcess.start()
    try {
      expect(await json(await fetch(`${gateway.baseUrl}/health`))).toEqual({ status: "ok" })
      const openapi = await json(await fetch(`${gateway.baseUrl}/v1/openapi.json`))
      expect(openapi.openapi).toBe("3.1.0")
      expect(Object.keys(openapi.paths)).toEqual(
        expect.arrayContaining([
          "/v1/chat/completions",
          "/v1/completions",
          "/v1/embeddings",
          "/v1/api-keys",
          "/v1/integrations/{id}",
          "/v1/configs/{id}"
        ])
      )
      expect(openapi.paths["/v1/configs/{id}"].put.description).toContain("configs")
      expect(openapi.components.schemas.CreateIntegration.properties.slug).toBeDefined()
      expect(openapi.components.schemas.ChatCompletionRequest.properties.messages).toBeDefined()
      const docs = await fetch(`${gateway.baseUrl}/docs`)
      expect(docs.headers.get("content-type")).toContain("text/html")
    } finally {
      await gateway.stop()
    }
  })

  it("creates an admin key at first start, prints it once, and keeps only its hash", async () => {
    const first = await GatewayProcess.start({ GATEWAY_ADMIN_KEY: undefined })
    const printed = /\n {2}(sy-\S+)\n/.exec(first.output())?.[1]
    expect(printed).toBeDefined()
    const key = printed ?? ""
    expect((await chat(first, key)).status).toBe(200)
    expect((await chat(first, "sy-wrong")).status).toBe(401)
    await first.stop()
    const { readFile } = await import("node:fs/promises")
    const database = await readFile(`${first.dataDir}/switchyard.db`)
    expect(database.includes(Buffer.from(key))).toBe(false)

    const second = await GatewayProcess.start({ GATEWAY_ADMIN_KEY: undefined, GATEWAY_DATA_DIR: first.dataDir })
    try {
      expect(second.output()).not.toContain("admin key was created")
      expect((await chat(second, key)).status).toBe(200)
    } finally {
      await second.stop()
    }
  })

  it("finishes an in-flight stream on SIGTERM before exiting", async () => {
    const gateway = await GatewayProcess.start()
    fake.enqueue(Behaviour.slowStream(100))
    const response = await chat(gateway, GatewayProcess.ADMIN_KEY, chatBody({ stream: true }))
    expect(response.status).toBe(200)
    const exit = gateway.stop("SIGTERM")
    const events = sseData(await response.text())
    expect(events.at(-1)).toBe("[DONE]")
    expect(await exit).toBe(0)
  })

  it("refuses new connections once shutting down", async () => {
    const gateway = await GatewayProcess.start()
    await gateway.stop("SIGTERM")
    await expect(fetch(`${gateway.baseUrl}/health`)).rejects.toThrow()
  })
})
