/**
 * Fuzz test of the gateway's input handling (issue 10): more than 10,000 generated malformed
 * requests, from a fixed seed, against one real gateway process whose only upstream is a
 * FakeOpenAI. Every answer must come within 2 s, never be a 5xx, and, when it is not a 2xx, be
 * the error envelope; a request the spec says must be refused must not be answered 2xx.
 *
 * Each category runs its requests 16 at a time, then replays its first failures alone (to tell a
 * cause from a bystander of a blocked process) and shrinks them with fast-check. A process that
 * stops answering /health is replaced, at most three times a category, and the suite goes on.
 *
 * Safety: every URL a request carries is the fake's own 127.0.0.1 URL or garbage that parses as
 * no http URL at all; `assertLocalOnly` checks each request before it is sent.
 * The generators, the sending and the reports live in `support/fuzz/`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "./support/Admin.ts"
import { type Category, type CategoryResult, runCategory } from "./support/fuzz/CategoryRun.ts"
import { configHeader, configRegex, deepConfig } from "./support/fuzz/ConfigHeaders.ts"
import * as FakeOpenAIProcess from "./support/fuzz/FakeOpenAIProcess.ts"
import type { World } from "./support/fuzz/FuzzRequest.ts"
import { headers } from "./support/fuzz/Headers.ts"
import { inferenceBody } from "./support/fuzz/InferenceBodies.ts"
import { chatSpec, completionSpec, embeddingSpec } from "./support/fuzz/InferenceSpecs.ts"
import { management } from "./support/fuzz/ManagementBodies.ts"
import { deepBody, rawBody } from "./support/fuzz/RawBodies.ts"
import * as ReplaceableGateway from "./support/fuzz/ReplaceableGateway.ts"
import { failureReport, summary } from "./support/fuzz/Report.ts"

const SEED = 1_010_010

const categories: ReadonlyArray<Category> = [
  { name: "chat body", runs: 1_800, arbitrary: (world) => inferenceBody(world, chatSpec) },
  { name: "completions body", runs: 800, arbitrary: (world) => inferenceBody(world, completionSpec) },
  { name: "embeddings body", runs: 800, arbitrary: (world) => inferenceBody(world, embeddingSpec) },
  { name: "raw body", runs: 1_000, arbitrary: rawBody },
  { name: "deep body", runs: 600, arbitrary: deepBody },
  { name: "headers", runs: 1_600, arbitrary: headers },
  { name: "management", runs: 1_600, arbitrary: management },
  { name: "config header", runs: 1_500, arbitrary: configHeader },
  { name: "config regex", runs: 100, arbitrary: configRegex },
  { name: "deep config", runs: 400, arbitrary: deepConfig }
]

describe("fuzz: malformed requests", () => {
  let fake: FakeOpenAIProcess.FakeOpenAIProcess | undefined
  let gateway: ReplaceableGateway.ReplaceableGateway
  let world: World
  const results: Array<CategoryResult> = []

  beforeAll(async () => {
    fake = await FakeOpenAIProcess.start()
    gateway = await ReplaceableGateway.start(fake.baseUrl)
    const created = await call(gateway.current.baseUrl, "POST", "/v1/configs", {
      body: { name: "fuzz target", config: { provider: "openai", api_key: "sk", custom_host: fake.baseUrl } }
    })
    world = { fakeUrl: fake.baseUrl, configId: typeof created.body?.id === "string" ? created.body.id : "pc-missing" }
  }, 60_000)

  afterAll(async () => {
    if (results.length > 0) console.log(summary(SEED, results))
    await gateway?.current.stop("SIGKILL")
    fake?.child.kill("SIGTERM")
  })

  it("generates more than 10,000 requests", () => {
    expect(categories.reduce((sum, category) => sum + category.runs, 0)).toBeGreaterThan(10_000)
  })

  categories.forEach((category, position) => {
    it(`${category.name}: no 5xx, an answer within 2 s, the error envelope on every refusal`, async () => {
      const result = await runCategory(gateway, world, category, SEED + position)
      results.push(result)
      if (result.failures.length > 0 || result.notSent > 0) expect.fail(failureReport(gateway, world, result))
    }, 240_000)
  })
})
