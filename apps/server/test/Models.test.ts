import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { json } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

let gateway: GatewayProcess.GatewayProcess
let client: OpenAI
beforeAll(async () => {
  gateway = await GatewayProcess.start()
  client = new OpenAI({
    apiKey: "unused",
    baseURL: `${gateway.baseUrl}/v1`,
    defaultHeaders: { "x-gateway-api-key": GatewayProcess.ADMIN_KEY },
    maxRetries: 0
  })
})
afterAll(() => gateway?.stop())

const get = (path: string, apiKey = GatewayProcess.ADMIN_KEY) =>
  fetch(`${gateway.baseUrl}${path}`, { headers: { "x-gateway-api-key": apiKey } })

describe("GET /v1/models/{id}", () => {
  it("answers the model the list holds, to the openai client's models.retrieve", async () => {
    const model = await client.models.retrieve("gpt-4o")
    expect(model).toMatchObject({ id: "gpt-4o", object: "model", owned_by: "openai" })
    const listed = (await client.models.list()).data.find((each) => each.id === "gpt-4o")
    expect(model).toEqual(listed)
  })

  it("answers 404 in the envelope for an id the catalog does not hold", async () => {
    const error = await client.models.retrieve("no-such-model").catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    const response = await get("/v1/models/no-such-model")
    expect(response.status).toBe(404)
    const { error: envelope } = await json(response)
    expect(envelope).toMatchObject({ type: "not_found_error", code: "not_found" })
    expect(envelope.message).toContain("no-such-model")
  })

  it("finds an id with a slash, as the client encodes it", async () => {
    const model = await client.models.retrieve("openai/gpt-4o")
    expect(model).toMatchObject({ id: "openai/gpt-4o", owned_by: "openrouter" })
  })

  it("answers the provider ?provider= names when several serve the id", async () => {
    const served = (await client.models.list()).data.filter((each) => each.id === "gpt-4o").map((each) => each.owned_by)
    expect(served).toEqual(expect.arrayContaining(["openai", "azure-openai"]))
    expect(await json(await get("/v1/models/gpt-4o?provider=azure-openai"))).toMatchObject({ owned_by: "azure-openai" })
    expect((await get("/v1/models/gpt-4o?provider=anthropic")).status).toBe(404)
  })

  it("needs a key with the completions scope, like the list", async () => {
    expect((await fetch(`${gateway.baseUrl}/v1/models/gpt-4o`)).status).toBe(401)
    expect((await get("/v1/models/gpt-4o", "sy-wrong")).status).toBe(401)
  })
})
