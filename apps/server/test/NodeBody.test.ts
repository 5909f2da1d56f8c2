import { assert, describe, it } from "@effect/vitest"
import { BodyDeadlines, NodeBody } from "@switchyard/server"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { IncomingMessage } from "node:http"
import { Socket } from "node:net"

const limits = { maxBytes: 1024, timeoutMs: 60_000 }

const incoming = (headers: Record<string, string> = {}) => {
  const request = new IncomingMessage(new Socket())
  request.headers = headers
  return request
}

describe("NodeBody.jsonObjectReader", () => {
  it.effect("reads a body that arrives in pieces within the time limit", () =>
    Effect.gen(function*() {
      const request = incoming()
      const fiber = yield* Effect.forkChild((yield* NodeBody.jsonObjectReader(limits))(request))
      request.push("{\"model\":")
      yield* TestClock.adjust("59 seconds")
      request.push("\"m\"}")
      request.push(null)
      assert.deepStrictEqual(yield* Fiber.join(fiber), { model: "m" })
    }).pipe(Effect.provide(BodyDeadlines.BodyDeadlines.layer)))

  it.effect("answers 408 when the body is slower than the limit", () =>
    Effect.gen(function*() {
      const request = incoming()
      const fiber = yield* Effect.forkChild(Effect.flip((yield* NodeBody.jsonObjectReader(limits))(request)))
      request.push("{\"model\":")
      yield* TestClock.adjust("59 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "ClientTimeout")
      assert.strictEqual(error.message, "body: did not arrive within 60 s")
    }).pipe(Effect.provide(BodyDeadlines.BodyDeadlines.layer)))

  it.effect("answers 413 past the size limit, from the declared length or from the bytes", () =>
    Effect.gen(function*() {
      const declared = yield* Effect.flip(
        (yield* NodeBody.jsonObjectReader(limits))(incoming({ "content-length": "2048" }))
      )
      assert.strictEqual(declared._tag, "PayloadTooLarge")
      const request = incoming()
      const fiber = yield* Effect.forkChild(Effect.flip((yield* NodeBody.jsonObjectReader(limits))(request)))
      request.push(Buffer.alloc(2048, 0x20))
      assert.strictEqual((yield* Fiber.join(fiber))._tag, "PayloadTooLarge")
    }).pipe(Effect.provide(BodyDeadlines.BodyDeadlines.layer)))

  it.effect("refuses a body nested deeper than 64 levels before parsing it", () =>
    Effect.gen(function*() {
      const request = incoming()
      const fiber = yield* Effect.forkChild(Effect.flip((yield* NodeBody.jsonObjectReader(limits))(request)))
      request.push(`{"a":${"[".repeat(64)}${"]".repeat(64)}}`)
      request.push(null)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.message, "body: must not be nested deeper than 64 levels of objects and arrays")
    }).pipe(Effect.provide(BodyDeadlines.BodyDeadlines.layer)))
})
