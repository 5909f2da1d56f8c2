/**
 * Test doubles for the routing tests: a provider adapter whose targets answer or fail as a test
 * scripts them (by `api_key`), open circuits, and requests with chosen metadata and body.
 */
import {
  ConfigCompiler,
  type ConfigNode,
  type Dispatch,
  type Endpoint,
  GatewayError,
  type GatewayRequest,
  GatewayResponse,
  ProviderRegistry,
  Stage
} from "@switchyard/core"
import { Routing } from "@switchyard/routing"
import { Effect, Layer } from "effect"

export interface ScriptedProvider {
  readonly adapter: ProviderRegistry.ProviderAdapter
  /** The `api_key` of each target the upstream was called for, in order. */
  readonly calls: Array<string>
  /** Makes the target with this `api_key` fail with `error` from now on. */
  readonly fail: (key: string, error: GatewayError.GatewayError) => void
}

/**
 * Provider `fake` (and `other`): each target answers `{ answeredBy: api_key }`, unless a test
 * made it fail.
 */
export const scriptedProvider = (): ScriptedProvider => {
  const calls: Array<string> = []
  const failures = new Map<string, GatewayError.GatewayError>()
  const adapter: ProviderRegistry.ProviderAdapter = {
    names: ["fake", "other"],
    make: (target) =>
      Effect.sync(() => {
        const key = target.api_key ?? "(none)"
        return () =>
          Effect.suspend(() => {
            calls.push(key)
            const failure = failures.get(key)
            return failure === undefined
              ? Effect.succeed(GatewayResponse.json({ answeredBy: key }))
              : Effect.fail(failure)
          })
      })
  }
  return { adapter, calls, fail: (key, error) => failures.set(key, error) }
}

/** A circuit breaker stand-in: targets with these `api_key`s are open and never reach upstream. */
export const openCircuits = (keys: ReadonlyArray<string>): Stage.StageFactory => (target) =>
  Effect.succeed((next) =>
    keys.includes(target.api_key ?? "")
      ? () => Effect.fail(new GatewayError.TargetsUnavailable({ message: `${target.provider}: circuit open` }))
      : next
  )

/** Compiles a tree with this package's strategies, the scripted provider and leaf middleware. */
export const compile = (
  config: ConfigNode.ConfigNode,
  provider: ScriptedProvider,
  middleware: ReadonlyArray<Stage.StageFactory> = []
): Effect.Effect<Dispatch.Dispatch, GatewayError.InvalidRequest> =>
  ConfigCompiler.compile(config).pipe(
    Effect.provide([
      ProviderRegistry.ProviderRegistry.layer([provider.adapter]),
      Routing.layer,
      // each factory in a phase of its own, outermost first
      Stage.Stages.layerOf(
        middleware.map((factory, index) =>
          Stage.make(Stage.phases[index]?.phase ?? "timeout", `stage ${index}`, factory)
        )
      ).pipe(Layer.orDie)
    ])
  )

/** A leaf of the fake provider, told apart by its key. */
export const leaf = (key: string, more: Partial<ConfigNode.ConfigNode> = {}): ConfigNode.ConfigNode => ({
  provider: "fake",
  api_key: key,
  ...more
})

export const request = (options: {
  readonly metadata?: Readonly<Record<string, string>>
  readonly body?: GatewayRequest.JsonObject
  readonly endpoint?: Endpoint.Endpoint
} = {}): GatewayRequest.GatewayRequest => ({
  endpoint: options.endpoint ?? "chat.completions",
  body: options.body ?? { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
  stream: false,
  context: {
    traceId: "0123456789abcdef0123456789abcdef",
    spanId: "0123456789abcdef",
    parentSpanId: undefined,
    spanName: undefined,
    metadata: options.metadata ?? {},
    principal: { keyId: "key-1", workspaceId: "ws-1", scopes: new Set(["admin"]) },
    headers: {},
    receivedAt: 0
  }
})

/** Which target answered, from the scripted provider's body. */
export const answeredBy = (response: GatewayResponse.GatewayResponse): unknown => {
  if (response._tag !== "Json") throw new Error(`expected a JSON answer, got ${response._tag}`)
  const body = response.body()
  return typeof body === "object" && body !== null && "answeredBy" in body ? body.answeredBy : undefined
}

/** The option-index header an answer or a failure carries. */
export const optionIndexOf = (
  outcome: GatewayResponse.GatewayResponse | GatewayError.GatewayError
): string | undefined =>
  GatewayError.HttpAnswer in outcome
    ? GatewayError.toHttp(outcome).headers[ConfigCompiler.OPTION_INDEX_HEADER]
    : outcome.headers[ConfigCompiler.OPTION_INDEX_HEADER]

export const upstreamStatus = (status: number, provider = "fake") =>
  new GatewayError.UpstreamStatus({ provider, status, body: { error: { message: `said ${status}` } }, headers: {} })

export const unreachable = (provider = "fake") =>
  new GatewayError.UpstreamUnreachable({ provider, message: "connection reset" })

export const timeout = (provider = "fake") => new GatewayError.UpstreamTimeout({ provider, timeoutMs: 1000 })
