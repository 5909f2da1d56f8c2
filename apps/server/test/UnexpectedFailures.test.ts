/**
 * Every request ends with an answer, whatever goes wrong inside the gateway: defects injected at
 * each stage of the pipeline (provider selection, compilation, target middleware, the provider
 * call, the middle of a stream) answer 500 in the envelope, or end the stream with an error
 * event, and are logged with their cause. The server here is the real edge and the real
 * pipeline; only the plug-in points (selector, middleware, adapters) are defective ones.
 */
import { Authenticator, ServerSecret } from "@switchyard/auth"
import { ConfigCompiler, Gateway, GatewayResponse, ProviderRegistry, ProviderSelection, Stage } from "@switchyard/core"
import { GatewayMetrics, Logs } from "@switchyard/observability"
import { StoredConfigs } from "@switchyard/provider-access"
import { RequestLog } from "@switchyard/request-log"
import { ResponseStore } from "@switchyard/responses-format"
import { Routing } from "@switchyard/routing"
import { BodyDeadlines, ManagementRoute, NodeEdge, Routes } from "@switchyard/server"
import { SqliteClient } from "@switchyard/storage"
import { Effect, Fiber, Layer, Option, Redacted, Stream } from "effect"
import { HttpRouter } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "./support/GatewayProcess.ts"

const ADMIN = "defects-admin-key"

const overflow = (depth: number): number => overflow(depth + 1) + 1

const dispatchDying = (
  provider: string,
  failure: () => GatewayResponse.GatewayResponse
): ProviderRegistry.ProviderAdapter => ({
  names: [provider],
  make: () => Effect.succeed(() => Effect.sync(failure))
})

const adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter> = [
  { names: ["dies-at-compile"], make: () => Effect.die(new Error("compile defect")) },
  dispatchDying("throws-in-call", () => {
    throw new Error("call defect")
  }),
  dispatchDying("overflows-the-stack", () => GatewayResponse.json(overflow(0))),
  {
    names: ["dies-mid-stream"],
    make: () =>
      Effect.succeed(() =>
        Effect.succeed(GatewayResponse.stream(
          Stream.concat(
            Stream.succeed({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "Hel" } }] }),
            Stream.die(new Error("stream defect"))
          )
        ))
      )
  },
  {
    names: ["healthy", "middleware-dies"],
    make: () => Effect.succeed(() => Effect.succeed(GatewayResponse.json({ object: "chat.completion", choices: [] })))
  }
]

const dyingMiddleware: Stage.StageFactory = (target) =>
  Effect.succeed((next) =>
    target.provider === "middleware-dies" ? () => Effect.die(new Error("middleware defect")) : next
  )

const dyingSelector: ProviderSelection.Selector = {
  name: "x-test-selector-dies",
  select: ({ headers }) =>
    headers["x-test-selector-dies"] === undefined
      ? Effect.succeed(Option.none())
      : Effect.die(new Error("selector defect"))
}

const logged: Array<{ readonly msg: string; readonly cause: string }> = []
const capture = Logs.Logs.layer({ format: "json", level: "info" }, (text) => {
  for (const line of text.trimEnd().split("\n")) {
    const event = JSON.parse(line) as { readonly msg: string; readonly cause?: string }
    logged.push({ msg: event.msg, cause: event.cause ?? "" })
  }
})

const pipeline = Gateway.Gateway.layer.pipe(
  Layer.provide(ConfigCompiler.ConfigCompiler.layer()),
  Layer.provide([
    ProviderRegistry.ProviderRegistry.layer(adapters),
    Routing.layer,
    Stage.Stages.layerOf([Stage.make("cache", "dying", dyingMiddleware)]).pipe(Layer.orDie),
    ProviderSelection.Selectors.layer([dyingSelector, ProviderSelection.providerHeader])
  ])
)

/** A management route whose handler throws: the router path must answer as the hot path does. */
const dyingRoute = HttpRouter.use((router) =>
  Effect.gen(function*() {
    yield* router.add(
      "GET",
      "/v1/dies",
      yield* ManagementRoute.route("configs", () => Effect.sync(() => JSON.parse("{")))
    )
  })
)

let baseUrl = ""
let stop: () => Promise<void> = async () => {}

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  const server = NodeEdge.layer(
    { host: "127.0.0.1", port, gracefulShutdownMs: 1_000, headersTimeoutMs: 30_000, bodyTimeoutMs: 60_000 },
    {
      patternOf: Routes.patternOf,
      node: Routes.nodeRoutes({ body: { maxBytes: 1024 * 1024, timeoutMs: 60_000 } }),
      router: dyingRoute
    }
  ).pipe(
    Layer.provide([
      pipeline,
      Authenticator.Authenticator.layerAdminKey(Redacted.make(ADMIN)),
      BodyDeadlines.BodyDeadlines.layer,
      // nothing here reads a request log
      RequestLog.RequestLog.layerOff,
      GatewayMetrics.GatewayMetrics.layer,
      // the Responses route keeps its responses in the database
      ResponseStore.ResponseStore.layer.pipe(Layer.provide(SqliteClient.layer({ filename: ":memory:" }))),
      // count_tokens asks the selected provider's adapter, found through the stored selectors too
      ProviderRegistry.ProviderRegistry.layer(adapters),
      StoredConfigs.StoredConfigs.layer.pipe(
        Layer.provide([
          SqliteClient.layer({ filename: ":memory:" }),
          ServerSecret.ServerSecret.layerSecret("unexpected failures test")
        ])
      )
    ]),
    Layer.provideMerge(capture)
  )
  const ready = Promise.withResolvers<void>()
  const fiber = Effect.runFork(
    Layer.build(server).pipe(
      Effect.andThen(Effect.sync(() => ready.resolve())),
      Effect.andThen(Effect.never),
      Effect.scoped
    )
  )
  await ready.promise
  stop = () => Effect.runPromise(Fiber.interrupt(fiber))
})

afterAll(() => stop())

const chat = (headers: Record<string, string>, body: Record<string, unknown> = {}) =>
  fetch(`${baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gateway-api-key": ADMIN, ...headers },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], ...body }),
    signal: AbortSignal.timeout(2_000)
  })

const expectInternalError = async (response: Response) => {
  expect(response.status).toBe(500)
  const traceId = response.headers.get("x-gateway-trace-id")
  expect(traceId).toMatch(/^[0-9a-f]{32}$/)
  expect(await response.json()).toEqual({
    error: { message: "internal error", type: "server_error", param: null, code: "internal_error" }
  })
  return traceId
}

describe("a defect inside the gateway", () => {
  it.each([
    ["provider selection", { "x-test-selector-dies": "1" }, "selector defect"],
    ["compiling the target", { "x-gateway-provider": "dies-at-compile" }, "compile defect"],
    ["a target middleware", { "x-gateway-provider": "middleware-dies" }, "middleware defect"],
    ["the provider call", { "x-gateway-provider": "throws-in-call" }, "call defect"],
    ["the provider call, by overflowing the stack", { "x-gateway-provider": "overflows-the-stack" }, "RangeError"]
  ])("in %s answers 500 in the envelope and logs its cause", async (_stage, headers, cause) => {
    const before = logged.length
    await expectInternalError(await chat(headers))
    const entry = logged.slice(before).find((line) => line.cause.includes(cause))
    expect(entry?.msg).toBe("request failed unexpectedly")
  })

  it("in the middle of a stream ends it with an error event and no [DONE]", async () => {
    const before = logged.length
    const response = await chat({ "x-gateway-provider": "dies-mid-stream" }, { stream: true })
    expect(response.status).toBe(200)
    const events = (await response.text()).split("\n\n").filter((event) => event.startsWith("data: "))
    expect(events).toHaveLength(2)
    expect(JSON.parse(events[0]?.slice(6) ?? "")).toMatchObject({ choices: [{ delta: { content: "Hel" } }] })
    expect(JSON.parse(events[1]?.slice(6) ?? "")).toEqual({
      error: { message: "internal error", type: "server_error", param: null, code: "internal_error" }
    })
    expect(logged.slice(before).some((line) => line.cause.includes("stream defect"))).toBe(true)
  })

  it("in a management route answers 500 in the envelope and logs its cause", async () => {
    const before = logged.length
    await expectInternalError(
      await fetch(`${baseUrl}/v1/dies`, { headers: { "x-gateway-api-key": ADMIN }, signal: AbortSignal.timeout(2_000) })
    )
    expect(logged.slice(before).some((line) => line.cause.includes("SyntaxError"))).toBe(true)
  })

  it("leaves the server serving the next request", async () => {
    const response = await chat({ "x-gateway-provider": "healthy" })
    expect(response.status).toBe(200)
  })
})
