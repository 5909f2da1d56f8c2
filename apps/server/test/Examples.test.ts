import { assert, describe, it } from "@effect/vitest"
import { FakeOpenAI, ReadmeExamples } from "@switchyard/fake-providers"
import { Effect, Fiber, Schedule } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serveWith } from "../examples/InProcessServer.ts"
import { freePort } from "./support/GatewayProcess.ts"

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.live("InProcessServer: serves the OpenAI-compatible API on the port its settings name", () =>
    Effect.gen(function*() {
      const fake = yield* Effect.acquireRelease(
        Effect.promise(() => FakeOpenAI.start()),
        (fake) => Effect.promise(() => fake.close())
      )
      const port = yield* Effect.promise(freePort)
      const server = yield* Effect.forkChild(serveWith({
        PORT: String(port),
        GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), "switchyard-server-")),
        GATEWAY_ADMIN_KEY: "sy-admin-123"
      }))
      const base = `http://127.0.0.1:${port}`
      yield* Effect.retry(
        Effect.tryPromise(() => fetch(`${base}/health`)).pipe(Effect.filterOrFail((response) => response.ok)),
        Schedule.spaced("50 millis").pipe(Schedule.upTo({ duration: "20 seconds" }))
      )
      const response = yield* Effect.promise(() =>
        fetch(`${base}/v1/chat/completions`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-gateway-api-key": "sy-admin-123",
            "x-gateway-provider": "openai",
            "x-gateway-custom-host": fake.baseUrl,
            authorization: "Bearer sk-123"
          },
          body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] })
        })
      )
      assert.strictEqual(response.status, 200)
      const body: unknown = yield* Effect.promise(() => response.json())
      assert.deepInclude(body, { object: "chat.completion" })
      assert.strictEqual(fake.requests[0]?.headers.authorization, "Bearer sk-123")
      yield* Fiber.interrupt(server)
    }).pipe(Effect.scoped))
})
