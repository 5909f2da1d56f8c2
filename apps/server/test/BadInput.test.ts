import { describe, expect, it } from "vitest"
import { chatBody, json, post, useGatewayAndFake, viaProviderHeader } from "./support/Fixtures.ts"
import { ADMIN_KEY } from "./support/GatewayProcess.ts"

const harness = useGatewayAndFake({ GATEWAY_MAX_BODY: String(64 * 1024) })

const expectError = async (response: Response, status: number, param: string | null, rule: RegExp) => {
  expect(response.status).toBe(status)
  expect(response.headers.get("content-type")).toContain("application/json")
  const body = await json(response)
  expect(body.error.param).toBe(param)
  expect(body.error.message).toMatch(rule)
  expect(typeof body.error.type).toBe("string")
  return body
}

const badBodies: ReadonlyArray<readonly [string, Record<string, unknown>, string, RegExp]> = [
  ["no messages", { model: "m", messages: [] }, "messages", /at least 1/],
  ["no model", { messages: [{ role: "user", content: "hi" }] }, "model", /missing|required/i],
  ["a message without a role", chatBody({ messages: [{ content: "hi" }] }), "messages[0].role", /.+/],
  ["an unknown role", chatBody({ messages: [{ role: "robot", content: "hi" }] }), "messages[0].role", /.+/],
  ["temperature above 2", chatBody({ temperature: 3 }), "temperature", /between 0 and 2/],
  ["top_p above 1", chatBody({ top_p: 1.5 }), "top_p", /between 0 and 1/],
  ["frequency_penalty below -2", chatBody({ frequency_penalty: -3 }), "frequency_penalty", /between -2 and 2/],
  ["presence_penalty above 2", chatBody({ presence_penalty: 2.5 }), "presence_penalty", /between -2 and 2/],
  ["n of 0", chatBody({ n: 0 }), "n", /between 1 and 128/],
  ["n of 129", chatBody({ n: 129 }), "n", /between 1 and 128/],
  ["five stop sequences", chatBody({ stop: ["a", "b", "c", "d", "e"] }), "stop", /4/],
  ["top_logprobs without logprobs", chatBody({ top_logprobs: 3 }), "top_logprobs", /logprobs/],
  ["top_logprobs of 21", chatBody({ logprobs: true, top_logprobs: 21 }), "top_logprobs", /between 0 and 20/],
  ["a logit_bias over 100", chatBody({ logit_bias: { "50256": 101 } }), "logit_bias[\"50256\"]", /-100 and 100/],
  ["an unknown tool_choice", chatBody({ tool_choice: "sometimes" }), "tool_choice", /.+/],
  [
    "129 tools",
    chatBody({ tools: Array.from({ length: 129 }, (_, i) => ({ type: "function", function: { name: `f${i}` } })) }),
    "tools",
    /128/
  ],
  ["an empty functions list", chatBody({ functions: [] }), "functions", /at least 1/],
  ["stream_options without stream", chatBody({ stream_options: { include_usage: true } }), "stream_options", /stream/]
]

describe("bad input answers 400 naming the field and the rule", () => {
  it.each(badBodies)("%s", async (_name, body, param, rule) => {
    await expectError(await post(harness, "/v1/chat/completions", body), 400, param, rule)
    expect(harness.fake.requests).toHaveLength(0)
  })

  it("a body that is not JSON", async () => {
    await expectError(await post(harness, "/v1/chat/completions", "{not json"), 400, null, /not valid JSON/)
  })

  it("a body that is a JSON array", async () => {
    await expectError(await post(harness, "/v1/chat/completions", "[1,2]"), 400, null, /JSON object/)
  })

  it("a config header that is not JSON", async () => {
    const headers = { ...viaProviderHeader(harness.fake), "x-gateway-config": "{oops" }
    await expectError(await post(harness, "/v1/chat/completions", chatBody(), headers), 400, "x-gateway-config", /JSON/)
  })

  it("a config with an unknown field deep in its tree", async () => {
    const config = {
      strategy: { mode: "fallback" },
      targets: [{
        strategy: { mode: "single" },
        targets: [{ provider: "openai", api_key: "k", retry: { attempts: 1, bogus: 1 } }]
      }]
    }
    const headers = {
      "content-type": "application/json",
      "x-gateway-api-key": ADMIN_KEY,
      "x-gateway-config": JSON.stringify(config)
    }
    const response = await post(harness, "/v1/chat/completions", chatBody(), headers)
    await expectError(response, 400, "config.targets[0].targets[0].retry.bogus", /bogus|unknown|not allowed/i)
  })

  it("a provider key the HTTP client could not send (not printable ASCII), before any provider is called", async () => {
    const headers = {
      "content-type": "application/json",
      "x-gateway-api-key": ADMIN_KEY,
      // JSON's escapes: the header itself stays ASCII, the key it decodes to does not
      "x-gateway-config": JSON.stringify({ provider: "openai", api_key: "sk-KEY", custom_host: harness.fake.baseUrl })
        .replace("KEY", String.raw`\u00e9\ud83d\ude00`)
    }
    await expectError(await post(harness, "/v1/chat/completions", chatBody(), headers), 400, "config.api_key", /ASCII/)
    expect(harness.fake.requests).toHaveLength(0)
  })

  it("a config that meets no field combination", async () => {
    const headers = {
      "content-type": "application/json",
      "x-gateway-api-key": ADMIN_KEY,
      "x-gateway-config": JSON.stringify({ name: "x" })
    }
    await expectError(
      await post(harness, "/v1/chat/completions", chatBody(), headers),
      400,
      "config",
      /combination|at least one/i
    )
  })

  it("a conditional strategy without conditions", async () => {
    const config = { strategy: { mode: "conditional" }, targets: [{ provider: "openai", api_key: "k" }] }
    const headers = {
      "content-type": "application/json",
      "x-gateway-api-key": ADMIN_KEY,
      "x-gateway-config": JSON.stringify(config)
    }
    const response = await post(harness, "/v1/chat/completions", chatBody(), headers)
    expect(response.status).toBe(400)
    expect((await json(response)).error.message).toMatch(/conditions/)
  })

  it("no provider at all", async () => {
    const headers = { "content-type": "application/json", "x-gateway-api-key": ADMIN_KEY }
    await expectError(
      await post(harness, "/v1/chat/completions", chatBody(), headers),
      400,
      "x-gateway-provider",
      /no provider/
    )
  })

  it("an unknown provider name", async () => {
    const headers = { ...viaProviderHeader(harness.fake), "x-gateway-provider": "nonesuch" }
    await expectError(
      await post(harness, "/v1/chat/completions", chatBody(), headers),
      400,
      "provider",
      /unknown provider "nonesuch"/
    )
  })

  it("a custom host that is not a URL", async () => {
    const headers = { ...viaProviderHeader(harness.fake), "x-gateway-custom-host": "ftp://x" }
    await expectError(
      await post(harness, "/v1/chat/completions", chatBody(), headers),
      400,
      "custom_host",
      /http or https/
    )
  })

  it("metadata that is not a JSON object of strings", async () => {
    const headers = { ...viaProviderHeader(harness.fake), "x-gateway-metadata": JSON.stringify({ plan: 3 }) }
    await expectError(
      await post(harness, "/v1/chat/completions", chatBody(), headers),
      400,
      "x-gateway-metadata",
      /string/
    )
  })

  it("metadata with more than 16 keys", async () => {
    const metadata = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"]))
    const headers = { ...viaProviderHeader(harness.fake), "x-gateway-metadata": JSON.stringify(metadata) }
    await expectError(await post(harness, "/v1/chat/completions", chatBody(), headers), 400, "x-gateway-metadata", /16/)
  })

  it("a request timeout header that is not a number", async () => {
    const headers = { ...viaProviderHeader(harness.fake), "x-gateway-request-timeout": "soon" }
    await expectError(
      await post(harness, "/v1/chat/completions", chatBody(), headers),
      400,
      "x-gateway-request-timeout",
      /milliseconds/
    )
  })

  it("a body over the size limit answers 413", async () => {
    const big = chatBody({ messages: [{ role: "user", content: "x".repeat(100 * 1024) }] })
    await expectError(await post(harness, "/v1/chat/completions", big), 413, null, /larger than the limit/)
  })

  it("a chunked body over the size limit answers 413", async () => {
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode("x".repeat(10 * 1024)))
        controller.close()
      }
    })
    const response = await fetch(`${harness.gateway.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: viaProviderHeader(harness.fake),
      body: chunks,
      duplex: "half"
    } as RequestInit)
    await expectError(response, 413, null, /larger than the limit/)
  })
})

describe("authentication", () => {
  it("answers 401 without x-gateway-api-key", async () => {
    const { "x-gateway-api-key": _, ...headers } = viaProviderHeader(harness.fake)
    await expectError(await post(harness, "/v1/chat/completions", chatBody(), headers), 401, null, /missing/)
  })

  it("answers 401 for a wrong key, before reading the body", async () => {
    const headers = { ...viaProviderHeader(harness.fake), "x-gateway-api-key": "wrong" }
    await expectError(await post(harness, "/v1/chat/completions", "{not json", headers), 401, null, /not a valid key/)
  })

  it("answers 404 in the envelope for an unknown route", async () => {
    const response = await fetch(`${harness.gateway.baseUrl}/v1/nothing-here`)
    await expectError(response, 404, null, /no route/)
  })
})
