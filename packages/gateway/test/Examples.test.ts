import { assert, describe, it } from "@effect/vitest"
import { Gateway, Principal, RequestContext } from "@switchyard/core"
import { Behaviour, FakeOpenAI, ReadmeExamples } from "@switchyard/fake-providers"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { vi } from "vitest"
import { pipeline } from "../examples/ComposedPipeline.ts"
import { chatThrough, runtimeFor } from "../examples/InProcessChat.ts"

/** Two fakes on 127.0.0.1: openai answering 503, groq answering. */
const fakes = Effect.acquireRelease(
  Effect.promise(async () => {
    const openai = await FakeOpenAI.start()
    openai.setDefault(Behaviour.json(503, { error: { message: "overloaded" } }))
    return { openai, groq: await FakeOpenAI.start() }
  }),
  ({ groq, openai }) => Effect.promise(() => Promise.all([openai.close(), groq.close()]))
)

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it("InProcessChat: openai fails its try and both retries, groq answers; then openai's circuit is open", async () => {
    // the generated admin key is announced on stdout: kept out of the test output
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined)
    const openai = await FakeOpenAI.start()
    const groq = await FakeOpenAI.start()
    openai.setDefault(Behaviour.json(503, { error: { message: "overloaded" } }))
    const gateway = runtimeFor(mkdtempSync(join(tmpdir(), "switchyard-gateway-")))
    try {
      const hosts = { openai: openai.baseUrl, groq: groq.baseUrl }
      const first = await gateway.runPromise(chatThrough(hosts))
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.headers["x-gateway-last-used-option-index"], "config.targets[1]")
      assert.strictEqual(openai.requests.length, 3)
      await gateway.runPromise(chatThrough(hosts))
      assert.strictEqual(openai.requests.length, 3)
      assert.strictEqual(groq.requests.length, 2)
      assert.include(String(log.mock.calls[0]?.[0]), "an admin key was created")
    } finally {
      await gateway.dispose()
      await Promise.all([openai.close(), groq.close()])
      log.mockRestore()
    }
  })

  it.live("ComposedPipeline: the same request through the packages it is made of", () =>
    Effect.gen(function*() {
      const { groq, openai } = yield* fakes
      const config = {
        strategy: { mode: "fallback" },
        retry: { attempts: 2 },
        cb_config: { failure_threshold: 3, cooldown_interval: 60_000 },
        targets: [
          { provider: "openai", api_key: "sk-123", custom_host: openai.baseUrl },
          { provider: "groq", api_key: "gsk-123", custom_host: groq.baseUrl }
        ]
      }
      const principal = Principal.make({ keyId: "docs", workspaceId: "default", scopes: ["completions"] })
      const context = yield* RequestContext.inProcess({
        principal,
        headers: { "x-gateway-config": JSON.stringify(config) }
      })
      const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] }
      const first = yield* Gateway.Gateway.use((gateway) =>
        gateway.handle({ endpoint: "chat.completions", body, context })
      )
      assert.strictEqual(first.headers["x-gateway-last-used-option-index"], "config.targets[1]")
      assert.strictEqual(openai.requests.length, 3)
      // three failures in a row opened openai's circuit: the next request goes to groq at once
      yield* Gateway.Gateway.use((gateway) => gateway.handle({ endpoint: "chat.completions", body, context }))
      assert.strictEqual(openai.requests.length, 3)
      assert.strictEqual(groq.requests.length, 2)
    }).pipe(Effect.provide(pipeline), Effect.scoped))
})
