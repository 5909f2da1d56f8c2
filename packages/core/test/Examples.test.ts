import { assert, describe, it } from "@effect/vitest"
import {
  ConfigCompiler,
  Gateway,
  GatewayError,
  GatewayResponse,
  Principal,
  ProviderRegistry,
  ProviderSelection,
  RequestContext,
  Stage,
  Strategy
} from "@switchyard/core"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Effect, Exit, Layer } from "effect"
import { answer } from "../examples/InProcessCall.ts"
import { LimitReached, RequestLimit } from "../examples/OwnStage.ts"

const ok: ProviderRegistry.ProviderAdapter = {
  names: ["ok"],
  make: () => Effect.succeed(() => Effect.succeed(GatewayResponse.json({ ok: true })))
}

const gatewayWith = (stages: Layer.Layer<never, Stage.StageConflict, Stage.Stages>) =>
  Gateway.Gateway.layer.pipe(
    Layer.provide([ProviderSelection.Selectors.layerHeaders, ConfigCompiler.ConfigCompiler.layer()]),
    Layer.provide([ProviderRegistry.ProviderRegistry.layer([ok]), Strategy.Strategies.layerSingle, stages]),
    Layer.provide(Stage.Stages.layer)
  )

const chat = Effect.gen(function*() {
  const principal = Principal.make({ keyId: "k", workspaceId: "ws-1", scopes: ["completions"] })
  const context = yield* RequestContext.inProcess({ principal, headers: { "x-gateway-provider": "ok" } })
  const body = { model: "m", messages: [{ role: "user", content: "Hi" }] }
  return yield* (yield* Gateway.Gateway).handle({ endpoint: "chat.completions", body, context })
})

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("InProcessCall: the echo adapter answers, labelled with its provider and path", () =>
    Effect.gen(function*() {
      const response = yield* answer
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(response.headers, {
        "x-gateway-provider": "echo",
        "x-gateway-last-used-option-index": "config"
      })
      assert.deepStrictEqual(response._tag === "Json" ? response.body() : undefined, {
        via: "echo",
        model: "gpt-4o-mini"
      })
    }))

  it.effect("OwnStage: the stage refuses a workspace past its limit with its own HTTP answer", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* chat).status, 200)
      const refused = yield* Effect.flip(chat)
      assert.instanceOf(refused, LimitReached)
      const http = GatewayError.toHttp(refused)
      assert.strictEqual(http.status, 412)
      assert.deepStrictEqual(http.body.error, {
        message: "ws-1: 1 requests used",
        type: "limit_error",
        param: null,
        code: "limit_reached"
      })
    }).pipe(Effect.provide(gatewayWith(RequestLimit(1)))))

  it.effect("OwnStage: two stages for one phase stop the start-up naming both", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.provide(chat, gatewayWith(Layer.merge(RequestLimit(1), RequestLimit(2)))))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? yield* Effect.flip(Effect.failCause(exit.cause)) : undefined
      assert.instanceOf(error, Stage.StageConflict)
      assert.include(error?.message, `two stages for the phase "limits": "request-limit" and "request-limit"`)
    }))

  const errorsListed: ReadonlyArray<readonly [GatewayError.GatewayError, number, string, string]> = [
    [new GatewayError.InvalidRequest({ message: "m", param: null }), 400, "invalid_request_error", "invalid_request"],
    [new GatewayError.Unauthorized({ message: "m" }), 401, "authentication_error", "invalid_api_key"],
    [new GatewayError.Forbidden({ message: "m" }), 403, "permission_error", "insufficient_scope"],
    [new GatewayError.NotFound({ message: "m" }), 404, "not_found_error", "not_found"],
    [new GatewayError.Conflict({ message: "m", param: "slug" }), 409, "conflict_error", "conflict"],
    [new GatewayError.UpstreamTimeout({ provider: "p", timeoutMs: 1 }), 408, "timeout_error", "request_timeout"],
    [new GatewayError.ClientTimeout({ message: "m" }), 408, "invalid_request_error", "request_timeout"],
    [new GatewayError.PayloadTooLarge({ limitBytes: 1 }), 413, "invalid_request_error", "payload_too_large"],
    [new GatewayError.UpstreamUnreachable({ provider: "p", message: "m" }), 502, "upstream_error", "bad_gateway"],
    [new GatewayError.TargetsUnavailable({ message: "m" }), 503, "upstream_error", "targets_unavailable"],
    [new GatewayError.Unavailable({ message: "m" }), 503, "server_error", "unavailable"],
    [new GatewayError.InternalError({ message: "secret detail" }), 500, "server_error", "internal_error"]
  ]
  it("answers each of core's errors with the status, type and code its README table gives", () => {
    for (const [error, status, type, code] of errorsListed) {
      const http = GatewayError.toHttp(error)
      assert.deepStrictEqual([error._tag, http.status, http.body.error.type, http.body.error.code], [
        error._tag,
        status,
        type,
        code
      ])
    }
    assert.notInclude(
      GatewayError.toHttp(new GatewayError.InternalError({ message: "secret detail" })).body.error.message,
      "secret"
    )
  })
})
