/**
 * The timeout against the real upstream client: the abandoned call must be cancelled, its socket
 * closed, not left running until the provider gives up.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Dispatch, GatewayError, GatewayResponse } from "@switchyard/core"
import { UpstreamClient } from "@switchyard/providers"
import { RequestTimeout } from "@switchyard/retry"
import { Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { request } from "./support/FakeUpstream.ts"
import { stallingUpstream } from "./support/StallingUpstream.ts"

/** A provider Dispatch as an adapter writes it: POST, then read the JSON body whole. */
const postJson = (url: string): Effect.Effect<Dispatch.Dispatch, never, UpstreamClient.UpstreamClient> =>
  Effect.gen(function*() {
    const client = yield* UpstreamClient.UpstreamClient
    return () =>
      client.post({ provider: "stalling", url, headers: { "content-type": "application/json" }, body: "{}" }).pipe(
        Effect.flatMap((response) => response.bytes),
        Effect.map((raw) => GatewayResponse.fromJsonBytes(raw) ?? GatewayResponse.json(null))
      )
  })

const timesOutAndCloses = (answer: "nothing" | "half a body") =>
  Effect.gen(function*() {
    const upstream = yield* stallingUpstream(answer)
    const dispatch = RequestTimeout.middleware("stalling", 5000)(yield* postJson(upstream.url))
    const fiber = yield* Effect.forkChild(Effect.flip(dispatch(request())))
    yield* Deferred.await(upstream.arrived)
    assert.isFalse(Deferred.isDoneUnsafe(upstream.closed))
    yield* TestClock.adjust(5000)
    const error = yield* Fiber.join(fiber)
    assert.deepStrictEqual(error, new GatewayError.UpstreamTimeout({ provider: "stalling", timeoutMs: 5000 }))
    // completes only once the provider has seen its connection closed
    yield* Deferred.await(upstream.closed)
  }).pipe(Effect.scoped, Effect.provide(UpstreamClient.UpstreamClient.layer()))

describe("RequestTimeout over the upstream client", () => {
  it.effect("closes the connection of a provider that never answered", () => timesOutAndCloses("nothing"))

  it.effect("closes the connection of a JSON answer whose body stalled half way", () =>
    timesOutAndCloses("half a body"))
})
