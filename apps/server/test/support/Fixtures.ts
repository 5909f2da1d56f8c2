/** Shared pieces of the end-to-end tests: a started gateway and fake, and request helpers. */
import { FakeOpenAI } from "@switchyard/fake-providers"
import { afterAll, beforeAll, beforeEach } from "vitest"
import * as GatewayProcess from "./GatewayProcess.ts"

export interface Harness {
  gateway: GatewayProcess.GatewayProcess
  fake: FakeOpenAI.FakeOpenAI
}

/** One gateway and one fake for a test file; the fake is reset before each test. */
export const useGatewayAndFake = (env?: Readonly<Record<string, string | undefined>>): Harness => {
  const harness = {} as Harness
  beforeAll(async () => {
    harness.fake = await FakeOpenAI.start()
    harness.gateway = await GatewayProcess.start(env)
  })
  beforeEach(() => harness.fake.reset())
  afterAll(async () => {
    await harness.gateway?.stop()
    await harness.fake?.close()
  })
  return harness
}

/** Headers that select the fake as an OpenAI-format provider through `x-gateway-provider`. */
export const viaProviderHeader = (fake: FakeOpenAI.FakeOpenAI, extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
  "x-gateway-provider": "openai",
  "x-gateway-custom-host": fake.baseUrl,
  authorization: "Bearer sk-upstream",
  ...extra
})

export const chatBody = (extra: Record<string, unknown> = {}) => ({
  model: "gpt-4o-mini",
  messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hello there" }],
  ...extra
})

export const post = (
  harness: Harness,
  path: string,
  body: unknown,
  headers: Record<string, string> = viaProviderHeader(harness.fake)
) =>
  fetch(`${harness.gateway.baseUrl}${path}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body)
  })

/** The `data:` payloads of an SSE body. */
export const sseData = (text: string): Array<string> =>
  text.split("\n\n").filter((event) => event.startsWith("data: ")).map((event) => event.slice("data: ".length))

/** A response's JSON body, loosely typed: tests assert on its shape. */
// oxlint-disable-next-line no-explicit-any
export const json = (response: Response): Promise<any> => response.json()
