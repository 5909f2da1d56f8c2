import { assert, describe, it } from "@effect/vitest"
import { GatewayError, type ProviderTarget, TrustedHosts } from "@switchyard/core"
import { DefaultPlugin, Feedback, Guardrails } from "@switchyard/guardrails"
import { Effect, Result } from "effect"
import { generateKeyPair, SignJWT } from "jose"
import { createServer } from "node:http"
import { chat, checkContext, fakeProvider } from "./support/Fake.ts"

// Every server here listens on 127.0.0.1; the refusals happen before any connection is made.

/** A server on 127.0.0.1 answering a passing verdict (and an empty key set), counting connections. */
const countingServer = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ readonly url: string; readonly connections: () => number; readonly close: () => void }>(
      (resolve) => {
        let connections = 0
        const server = createServer((_request, response) => {
          response.writeHead(200, { "content-type": "application/json" })
          response.end(JSON.stringify({ verdict: true, keys: [] }))
        })
        server.on("connection", () => (connections += 1))
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          const port = typeof address === "object" && address !== null ? address.port : 0
          resolve({ url: `http://127.0.0.1:${port}/hook`, connections: () => connections, close: () => server.close() })
        })
      }
    )
  ),
  (server) => Effect.sync(() => server.close())
)

const prepared = (id: string, parameters: unknown) => {
  const check = DefaultPlugin.checks.find((c) => c.id === id)
  const result = check?.prepare(parameters)
  if (result === undefined || Result.isFailure(result)) throw new Error(`${id} did not prepare`)
  return result.success
}

/** `GATEWAY_TRUSTED_HOSTS=""`. */
const refuseLoopback = TrustedHosts.layer("")

describe("checks that call out, under a list that trusts no loopback", () => {
  it.live("webhook: fails the check naming webhookURL, and never connects", () =>
    Effect.gen(function*() {
      const server = yield* countingServer
      const error = yield* Effect.flip(prepared("default.webhook", { webhookURL: server.url })(checkContext("x")))
      assert.strictEqual(error._tag, "CheckError")
      assert.strictEqual(
        error.message,
        "webhookURL: 127.0.0.1 is a loopback address; the gateway calls only public addresses and the hosts GATEWAY_TRUSTED_HOSTS lists"
      )
      assert.strictEqual(server.connections(), 0)
    }).pipe(Effect.scoped, Effect.provide(refuseLoopback)))

  it.live("log: fails the check naming logURL, and never connects", () =>
    Effect.gen(function*() {
      const server = yield* countingServer
      const error = yield* Effect.flip(prepared("default.log", { logURL: server.url })(checkContext("x")))
      assert.include(error.message, "logURL: 127.0.0.1 is a loopback address")
      assert.strictEqual(server.connections(), 0)
    }).pipe(Effect.scoped, Effect.provide(refuseLoopback)))

  it.live("jwt: the key set is never fetched, and the check cannot decide rather than judging the token", () =>
    Effect.gen(function*() {
      const server = yield* countingServer
      const check = prepared("default.jwt", { jwksUri: server.url, headerKey: "x-user-token" })
      const { privateKey } = yield* Effect.promise(() => generateKeyPair("RS256"))
      const token = yield* Effect.promise(() =>
        new SignJWT({ sub: "u" }).setProtectedHeader({ alg: "RS256", kid: "k1" }).setExpirationTime("5m").sign(
          privateKey
        )
      )
      const error = yield* Effect.flip(check(checkContext("x", { headers: { "x-user-token": token } })))
      assert.strictEqual(error._tag, "CheckError")
      assert.include(error.message, "jwksUri: 127.0.0.1 is a loopback address")
      assert.strictEqual(server.connections(), 0)
    }).pipe(Effect.scoped, Effect.provide(refuseLoopback)))

  it.live("cloud metadata is refused under the default list too", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        prepared("default.webhook", { webhookURL: "http://169.254.169.254/latest/meta-data" })(checkContext("x"))
      )
      assert.include(error.message, "webhookURL: 169.254.169.254 is a link-local address")
    }))

  it.live("the default list still lets a webhook on 127.0.0.1 answer", () =>
    Effect.gen(function*() {
      const server = yield* countingServer
      const result = yield* prepared("default.webhook", { webhookURL: server.url })(checkContext("x"))
      assert.isTrue(result.verdict)
      assert.strictEqual(server.connections(), 1)
    }).pipe(Effect.scoped))
})

describe("Guardrails.make and trusted hosts", () => {
  it.live("runs every check under the policy it was built with, whatever the request's context holds", () =>
    Effect.gen(function*() {
      const server = yield* countingServer
      const factory = yield* Guardrails.make().pipe(Effect.provide(refuseLoopback))
      const target: ProviderTarget.ProviderTarget = { provider: "fake" }
      const config = { ...target, input_guardrails: [{ "default.webhook": { webhookURL: server.url }, deny: true }] }
      const provider = fakeProvider("the answer")
      const wrap = yield* factory(config, "config")
      // the request runs without any TrustedHosts layer: the default list would let 127.0.0.1 through
      const error = yield* Effect.flip(wrap(provider.dispatch)(chat("hello")))
      assert.strictEqual(error._tag, "HookDenied")
      assert.strictEqual(GatewayError.toHttp(error).status, 446)
      assert.include(JSON.stringify(GatewayError.toHttp(error).body), "webhookURL: 127.0.0.1 is a loopback address")
      assert.strictEqual(provider.received.length, 0)
      assert.strictEqual(server.connections(), 0)
    }).pipe(Effect.scoped, Effect.provide(Feedback.FeedbackStore.layerMemory)))
})
