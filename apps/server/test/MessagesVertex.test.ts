/**
 * POST /v1/messages/count_tokens to Claude on Vertex AI: the count goes to Vertex's
 * `count-tokens:rawPredict` with the target's service-account token, as Anthropic's client
 * would send it there, and answers what Anthropic itself would count.
 */
import Anthropic from "@anthropic-ai/sdk"
import { Behaviour, FakeVertex } from "@switchyard/fake-providers"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as GatewayProcess from "./support/GatewayProcess.ts"
import { direct, useAnthropicAndGateway, user } from "./support/MessagesFixtures.ts"

const servers = useAnthropicAndGateway()
let vertex: FakeVertex.FakeVertex

beforeAll(async () => {
  vertex = await FakeVertex.start()
})
beforeEach(() => vertex.reset())
afterAll(async () => {
  await vertex?.close()
})

const viaVertex = () =>
  new Anthropic({
    apiKey: GatewayProcess.ADMIN_KEY,
    baseURL: servers.gateway.baseUrl,
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-config": JSON.stringify({
        provider: "vertex-ai",
        cloud2_project_id: vertex.project,
        cloud2_region: vertex.region,
        cloud2_service_account_json: vertex.serviceAccount,
        custom_host: vertex.baseUrl
      })
    }
  })

describe("/v1/messages/count_tokens to Claude on Vertex AI", () => {
  const counted = {
    model: "claude-sonnet-4-5@20250929",
    system: "Be brief.",
    messages: [user("How many tokens is this sentence?")]
  }

  it("asks Vertex's count-tokens:rawPredict with the model in the body and Vertex's anthropic_version", async () => {
    const ours = await viaVertex().messages.countTokens(counted)
    expect(ours).toEqual(await direct(servers.anthropic).messages.countTokens(counted))
    const sent = vertex.requests.at(-1)
    expect(sent?.path).toBe(
      `/v1/projects/${vertex.project}/locations/${vertex.region}/publishers/anthropic/models/count-tokens:rawPredict`
    )
    expect(sent?.headers.authorization).toMatch(/^Bearer ya29\./)
    expect(sent?.body).toEqual({ ...counted, anthropic_version: "vertex-2023-10-16" })
  })

  it("answers Vertex's error with its status, in Anthropic's shape", async () => {
    vertex.enqueue(
      Behaviour.json(503, { error: { code: 503, message: "The service is unavailable.", status: "UNAVAILABLE" } })
    )
    const error = await viaVertex().messages.countTokens(counted).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.InternalServerError)
    expect(Object(error).status).toBe(503)
    expect(Object(error).error.error.type).toBe("overloaded_error")
  })

  it("counts locally for a Gemini model", async () => {
    const counted2 = await viaVertex().messages.countTokens({ ...counted, model: "gemini-2.5-pro" })
    expect(counted2.input_tokens).toBeGreaterThan(0)
    expect(vertex.requests.filter((request) => request.path.includes("count"))).toHaveLength(0)
  })
})
