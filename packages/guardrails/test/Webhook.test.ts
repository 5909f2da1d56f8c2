import { assert, describe, it } from "@effect/vitest"
import { Check, DefaultPlugin } from "@switchyard/guardrails"
import { Effect, Result } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { checkContext } from "./support/Fake.ts"

/** A local webhook on 127.0.0.1, closed when the test's scope ends; records the bodies it got. */
const webhookServer = (handle: (body: unknown, response: ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly bodies: Array<unknown>; readonly close: () => void }>((resume) => {
      const bodies: Array<unknown> = []
      const server = createServer((request: IncomingMessage, response) => {
        let text = ""
        request.on("data", (chunk) => (text += String(chunk)))
        request.on("end", () => {
          const body: unknown = JSON.parse(text)
          bodies.push(body)
          handle(body, response)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/hook`, bodies, close: () => server.close() }))
      })
    }),
    (server) => Effect.sync(() => server.close())
  )

const webhook = (parameters: unknown) => {
  const check = DefaultPlugin.checks.find((c) => c.id === "default.webhook")
  const prepared = check?.prepare(parameters)
  if (prepared === undefined || Result.isFailure(prepared)) throw new Error("webhook did not prepare")
  return prepared.success
}

const reply = (body: unknown) => (_: unknown, response: ServerResponse) => {
  response.writeHead(200, { "content-type": "application/json" })
  response.end(JSON.stringify(body))
}

describe("default.webhook", () => {
  it.live("posts {request, response, eventType} and reads the verdict", () =>
    Effect.gen(function*() {
      const server = yield* webhookServer(reply({ verdict: false, data: { score: 0.9 } }))
      const result = yield* webhook({ webhookURL: server.url })(checkContext("hello", { answerText: "bye" }))
      assert.isFalse(result.verdict)
      assert.deepStrictEqual(result.data, { score: 0.9 })
      const sent = server.bodies[0] as { eventType: string; request: { text: string }; response: { text: string } }
      assert.strictEqual(sent.eventType, "afterRequestHook")
      assert.strictEqual(sent.request.text, "hello")
      assert.strictEqual(sent.response.text, "bye")
    }).pipe(Effect.scoped))

  it.live("a slow webhook fails the check with a timeout", () =>
    Effect.gen(function*() {
      const server = yield* webhookServer((_, response) => setTimeout(() => response.end("{}"), 2_000))
      const error = yield* Effect.flip(webhook({ webhookURL: server.url, timeout: 50 })(checkContext("x")))
      assert.strictEqual(error._tag, "CheckError")
      assert.include(error.message, "no answer within 50 ms")
    }).pipe(Effect.scoped))

  it.live("a webhook that is down fails the check with the reason", () =>
    Effect.gen(function*() {
      const server = yield* webhookServer(reply({ verdict: true }))
      server.close()
      yield* Effect.sleep("20 millis")
      const error = yield* Effect.flip(webhook({ webhookURL: server.url })(checkContext("x")))
      assert.strictEqual(error._tag, "CheckError")
    }).pipe(Effect.scoped))

  it.live("a reply that is not {verdict} fails the check", () =>
    Effect.gen(function*() {
      const server = yield* webhookServer(reply({ ok: true }))
      const error = yield* Effect.flip(webhook({ webhookURL: server.url })(checkContext("x")))
      assert.include(error.message, "not {verdict, data}")
    }).pipe(Effect.scoped))

  it("is a check of the default plugin", () => {
    assert.strictEqual(Check.qualify("webhook"), "default.webhook")
  })
})
