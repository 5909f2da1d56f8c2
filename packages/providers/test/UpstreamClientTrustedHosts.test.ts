import { assert, describe, it } from "@effect/vitest"
import { GatewayError, ProviderRegistry, TrustedHosts } from "@switchyard/core"
import { GoogleAdapters, Providers, UpstreamClient } from "@switchyard/providers"
import { Effect, Layer, Option, Result } from "effect"
import { createServer } from "node:http"
import { fakeVertex } from "./support/GoogleFakes.ts"
import { chatBody, fakeOpenAI, request } from "./support/Upstream.ts"

// Every test here talks to 127.0.0.1 only; the refusals happen before any connection is made.

/** A plain server on 127.0.0.1 that counts the connections it accepted. */
const countingServer = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ readonly port: number; readonly connections: () => number; readonly close: () => Promise<void> }>(
      (resolve) => {
        let connections = 0
        const server = createServer((_request, response) => response.end("{}"))
        server.on("connection", () => (connections += 1))
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          const port = typeof address === "object" && address !== null ? address.port : 0
          resolve({
            port,
            connections: () => connections,
            close: () => new Promise((done) => server.close(() => done()))
          })
        })
      }
    )
  ),
  (server) => Effect.promise(() => server.close())
)

interface Resolution {
  readonly calls: () => ReadonlyArray<string>
  readonly resolve: TrustedHosts.Resolver
}

/** A resolver answering from `answers` in turn (the last one repeats), recording each name asked. */
const scriptedResolver = (answers: ReadonlyArray<string>): Resolution => {
  const asked: Array<string> = []
  return {
    calls: () => asked,
    resolve: (hostname, _options, callback) => {
      const address = answers[Math.min(asked.length, answers.length - 1)] ?? "127.0.0.1"
      asked.push(hostname)
      callback(null, [{ address, family: address.includes(":") ? 6 : 4 }])
    }
  }
}

/** The upstream client under a trusted-hosts list (and resolver). */
const clientUnder = (list: string, resolve?: TrustedHosts.Resolver) =>
  UpstreamClient.UpstreamClient.layer().pipe(Layer.provide(TrustedHosts.layer(list, { resolve })))

const postTo = (url: string, callerField?: string) =>
  Effect.flatMap(UpstreamClient.UpstreamClient, (client) =>
    client.post({
      provider: "openai",
      url,
      headers: { "content-type": "application/json" },
      body: "{}",
      ...(callerField === undefined ? {} : { callerField })
    }))

const refusal = <A, E extends GatewayError.GatewayError, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => {
    assert.instanceOf(error, GatewayError.InvalidRequest)
    assert.strictEqual(GatewayError.toHttp(error).status, 400)
    return error
  })

describe("UpstreamClient and trusted hosts", () => {
  it.effect("refuses a caller's loopback host with a 400 naming the field, before connecting", () =>
    Effect.gen(function*() {
      const server = yield* countingServer
      for (const host of [`127.0.0.1:${server.port}`, `[::1]:${server.port}`]) {
        const error = yield* refusal(postTo(`http://${host}/v1/chat/completions`, "custom_host"))
        assert.strictEqual(error.param, "custom_host")
        assert.match(error.message, /^custom_host: (127\.0\.0\.1|::1) is a loopback address; the gateway calls only/)
      }
      assert.strictEqual(server.connections(), 0)
    }).pipe(Effect.scoped, Effect.provide(clientUnder(""))))

  it.effect("refuses a name that resolves to loopback at connect time: the 400, not a 502", () =>
    Effect.gen(function*() {
      const server = yield* countingServer
      const error = yield* refusal(postTo(`http://models.example.net:${server.port}/v1`, "custom_host"))
      assert.include(error.message, "custom_host: models.example.net resolves to 127.0.0.1, a loopback address")
      assert.strictEqual(server.connections(), 0)
    }).pipe(Effect.scoped, Effect.provide(clientUnder("", scriptedResolver(["127.0.0.1"]).resolve))))

  it.effect("refuses a rebound name although the early check saw a public address", () => {
    // the first answer (public) is only ever judged, never connected to; the second is loopback
    const resolution = scriptedResolver(["93.184.216.34", "127.0.0.1"])
    const hosts = Result.getOrThrow(TrustedHosts.make("", { resolve: resolution.resolve }))
    return Effect.gen(function*() {
      const server = yield* countingServer
      const url = `http://rebind.example.net:${server.port}/v1`
      yield* TrustedHosts.check(hosts, url, "custom_host")
      const error = yield* refusal(postTo(url, "custom_host"))
      assert.include(error.message, "rebind.example.net resolves to 127.0.0.1, a loopback address")
      assert.deepStrictEqual(resolution.calls(), ["rebind.example.net", "rebind.example.net"])
      assert.strictEqual(server.connections(), 0)
    }).pipe(
      Effect.scoped,
      Effect.provide(
        UpstreamClient.UpstreamClient.layer().pipe(Layer.provide(Layer.succeed(TrustedHosts.TrustedHosts, hosts)))
      )
    )
  })

  it.effect("connects a caller's host through the guarded lookup when it resolves into the list", () => {
    const resolution = scriptedResolver(["127.0.0.1"])
    return Effect.gen(function*() {
      const server = yield* countingServer
      const response = yield* postTo(`http://fake.example.net:${server.port}/v1`, "custom_host")
      assert.strictEqual(response.status, 200)
      yield* response.discard
      assert.deepStrictEqual(resolution.calls(), ["fake.example.net"])
      assert.strictEqual(server.connections(), 1)
    }).pipe(Effect.scoped, Effect.provide(clientUnder("127.0.0.1", resolution.resolve)))
  })

  it.effect("calls built-in URLs on the plain path: no guard and no lookup of its own", () => {
    const resolution = scriptedResolver(["127.0.0.1"])
    return Effect.gen(function*() {
      const server = yield* countingServer
      const response = yield* postTo(`http://127.0.0.1:${server.port}/v1`)
      assert.strictEqual(response.status, 200)
      yield* response.discard
      assert.deepStrictEqual(resolution.calls(), [])
    }).pipe(Effect.scoped, Effect.provide(clientUnder("", resolution.resolve)))
  })

  it.effect("keeps the default list without a TrustedHosts layer: loopback works as before", () =>
    Effect.gen(function*() {
      const server = yield* countingServer
      const response = yield* postTo(`http://127.0.0.1:${server.port}/v1`, "custom_host")
      assert.strictEqual(response.status, 200)
      yield* response.discard
      const metadata = yield* refusal(postTo("http://169.254.169.254/latest/meta-data", "custom_host"))
      assert.include(metadata.message, "169.254.169.254 is a link-local address")
    }).pipe(Effect.scoped, Effect.provide(UpstreamClient.UpstreamClient.layer())))
})

describe("Providers.adapters and trusted hosts", () => {
  const registry = Effect.map(
    UpstreamClient.UpstreamClient,
    (client) => ProviderRegistry.ProviderRegistry.fromAdapters(Providers.adapters(client))
  )

  const dispatchOf = (target: Parameters<ProviderRegistry.ProviderAdapter["make"]>[0]) =>
    Effect.gen(function*() {
      const adapter = (yield* registry).find(target.provider)
      if (Option.isNone(adapter)) return yield* Effect.die(new Error(`no adapter for ${target.provider}`))
      return yield* adapter.value.make(target)
    })

  it.effect("a target's custom_host goes through the guard: refused under an empty list, the fake never called", () =>
    Effect.gen(function*() {
      const fake = yield* fakeOpenAI
      const dispatch = yield* dispatchOf({ provider: "openai", api_key: "sk-test", custom_host: fake.baseUrl })
      const error = yield* refusal(dispatch(request({ body: chatBody })))
      assert.strictEqual(error.param, "custom_host")
      assert.strictEqual(fake.requests.length, 0)
    }).pipe(Effect.scoped, Effect.provide(clientUnder(""))))

  it.effect("a target's custom_host on loopback works under the default list", () =>
    Effect.gen(function*() {
      const fake = yield* fakeOpenAI
      const dispatch = yield* dispatchOf({ provider: "openai", api_key: "sk-test", custom_host: fake.baseUrl })
      const response = yield* dispatch(request({ body: chatBody }))
      assert.strictEqual(response.status, 200)
      assert.strictEqual(fake.requests.length, 1)
    }).pipe(Effect.scoped, Effect.provide(clientUnder(TrustedHosts.DEFAULT_LIST))))

  it.effect("a service account's own token_uri is guarded too, and named in the refusal", () =>
    Effect.gen(function*() {
      const fake = yield* fakeVertex()
      // the adapter is made on the plain client: only the token exchange is the caller's host here
      const client = yield* UpstreamClient.UpstreamClient
      const dispatch = yield* GoogleAdapters.VertexAdapter.make(client).make({
        provider: "vertex-ai",
        custom_host: fake.baseUrl,
        cloud2_project_id: fake.project,
        cloud2_region: fake.region,
        cloud2_service_account_json: fake.serviceAccount
      })
      const error = yield* refusal(
        dispatch(request({ body: { model: "gemini-2.5-pro", messages: [{ role: "user", content: "hi" }] } }))
      )
      assert.strictEqual(error.param, "cloud2_service_account_json.token_uri")
      assert.include(error.message, "127.0.0.1 is a loopback address")
    }).pipe(Effect.scoped, Effect.provide(clientUnder(""))))
})
