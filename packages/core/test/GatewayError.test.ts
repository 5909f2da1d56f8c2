import { assert, describe, it } from "@effect/vitest"
import { GatewayError } from "@switchyard/core"
import { Data } from "effect"

const upstream = (status: number, body: unknown) =>
  GatewayError.toHttp(new GatewayError.UpstreamStatus({ provider: "openai", status, body, headers: {} }))

describe("GatewayError.toHttp", () => {
  it("passes a provider's rate-limit hints on as headers, and nothing else", () => {
    const failure = GatewayError.toHttp(
      new GatewayError.UpstreamStatus({
        provider: "openai",
        status: 429,
        body: { error: { message: "slow down" } },
        headers: { "retry-after": "7", "retry-after-ms": "7000", "x-request-id": "abc", "set-cookie": "a=b" }
      })
    )
    assert.deepStrictEqual(failure.headers, { "retry-after": "7", "retry-after-ms": "7000" })
  })

  it("answers InvalidRequest with 400 and names the offending param", () => {
    const failure = GatewayError.toHttp(new GatewayError.InvalidRequest({ message: "model: required", param: "model" }))
    assert.deepStrictEqual(failure, {
      status: 400,
      headers: {},
      body: {
        error: { message: "model: required", type: "invalid_request_error", param: "model", code: "invalid_request" }
      }
    })
  })

  it("answers Unauthorized with 401 and code invalid_api_key", () => {
    assert.deepStrictEqual(GatewayError.toHttp(new GatewayError.Unauthorized({ message: "missing" })), {
      status: 401,
      headers: {},
      body: { error: { message: "missing", type: "authentication_error", param: null, code: "invalid_api_key" } }
    })
  })

  it("answers Forbidden with 403 and code insufficient_scope", () => {
    assert.deepStrictEqual(GatewayError.toHttp(new GatewayError.Forbidden({ message: "needs keys" })), {
      status: 403,
      headers: {},
      body: { error: { message: "needs keys", type: "permission_error", param: null, code: "insufficient_scope" } }
    })
  })

  it("answers NotFound with 404 and code not_found", () => {
    assert.deepStrictEqual(GatewayError.toHttp(new GatewayError.NotFound({ message: "no such batch" })), {
      status: 404,
      headers: {},
      body: { error: { message: "no such batch", type: "not_found_error", param: null, code: "not_found" } }
    })
  })

  it("answers UpstreamTimeout with 408 naming the provider and the timeout", () => {
    assert.deepStrictEqual(
      GatewayError.toHttp(new GatewayError.UpstreamTimeout({ provider: "groq", timeoutMs: 250 })),
      {
        status: 408,
        headers: {},
        body: {
          error: {
            message: "groq: no answer within 250 ms",
            type: "timeout_error",
            param: null,
            code: "request_timeout"
          }
        }
      }
    )
  })

  it("answers PayloadTooLarge with 413 naming the limit", () => {
    assert.deepStrictEqual(GatewayError.toHttp(new GatewayError.PayloadTooLarge({ limitBytes: 1024 })), {
      status: 413,
      headers: {},
      body: {
        error: {
          message: "request body is larger than the limit of 1024 bytes",
          type: "invalid_request_error",
          param: null,
          code: "payload_too_large"
        }
      }
    })
  })

  it("answers UpstreamUnreachable with 502 naming the provider", () => {
    const error = new GatewayError.UpstreamUnreachable({ provider: "openai", message: "connection reset" })
    assert.deepStrictEqual(GatewayError.toHttp(error), {
      status: 502,
      headers: {},
      body: { error: { message: "openai: connection reset", type: "upstream_error", param: null, code: "bad_gateway" } }
    })
  })

  it("answers InternalError with 500 without showing its message", () => {
    assert.deepStrictEqual(GatewayError.toHttp(new GatewayError.InternalError({ message: "db password wrong" })), {
      status: 500,
      headers: {},
      body: { error: { message: "internal error", type: "server_error", param: null, code: "internal_error" } }
    })
  })

  it("passes an upstream status through unchanged", () => {
    assert.strictEqual(upstream(429, { error: { message: "slow down" } }).status, 429)
  })

  it("keeps an OpenAI-shaped upstream body as it is, extra members included", () => {
    const body = {
      error: { message: "Rate limit reached", type: "requests", param: "model", code: "rate_limit_exceeded", extra: 1 },
      request_id: "req-1"
    }
    assert.deepStrictEqual(upstream(429, body).body, body)
  })

  it("fills the type, param and code an OpenAI-shaped upstream body lacks", () => {
    assert.deepStrictEqual(upstream(400, { error: { message: "bad" } }).body, {
      error: { message: "bad", type: "upstream_error", param: null, code: null }
    })
  })

  it("turns a numeric upstream error code into a string", () => {
    assert.deepStrictEqual(upstream(400, { error: { message: "bad", type: "x", code: 1214 } }).body.error.code, "1214")
  })

  it("wraps an upstream text body in the envelope with the status as code", () => {
    assert.deepStrictEqual(upstream(503, "<html>overloaded</html>").body, {
      error: { message: "<html>overloaded</html>", type: "upstream_error", param: null, code: "503" }
    })
  })

  it("wraps an upstream object with a top-level message in the envelope", () => {
    assert.deepStrictEqual(upstream(500, { message: "model crashed", status: "error" }).body, {
      error: { message: "model crashed", type: "upstream_error", param: null, code: "500" }
    })
  })

  it("wraps an upstream error whose message is not a string in the envelope", () => {
    assert.deepStrictEqual(upstream(400, { error: { message: 42 } }).body, {
      error: { message: "openai answered 400", type: "upstream_error", param: null, code: "400" }
    })
  })

  it("names the provider and status when the upstream body is empty", () => {
    assert.deepStrictEqual(upstream(502, "").body, {
      error: { message: "openai answered 502", type: "upstream_error", param: null, code: "502" }
    })
  })
})

describe("GatewayError upstream failures", () => {
  it("answers TargetsUnavailable with 503", () => {
    const failure = GatewayError.toHttp(new GatewayError.TargetsUnavailable({ message: "every circuit is open" }))
    assert.strictEqual(failure.status, 503)
    assert.strictEqual(failure.body.error.code, "targets_unavailable")
  })

  it("gives the status routing decides on, and none for the gateway's own errors", () => {
    assert.strictEqual(
      GatewayError.upstreamStatusOf(
        new GatewayError.UpstreamStatus({ provider: "p", status: 429, body: {}, headers: {} })
      ),
      429
    )
    assert.strictEqual(
      GatewayError.upstreamStatusOf(new GatewayError.UpstreamUnreachable({ provider: "p", message: "x" })),
      502
    )
    assert.strictEqual(
      GatewayError.upstreamStatusOf(new GatewayError.UpstreamTimeout({ provider: "p", timeoutMs: 5 })),
      408
    )
    assert.isUndefined(GatewayError.upstreamStatusOf(new GatewayError.InvalidRequest({ message: "m", param: null })))
  })

  it("carries gateway headers on an upstream failure into its answer, later ones winning", () => {
    const error = GatewayError.withGatewayHeaders(
      GatewayError.withGatewayHeaders(new GatewayError.UpstreamUnreachable({ provider: "p", message: "x" }), {
        "x-gateway-retry-attempt-count": "1",
        "x-gateway-provider": "openai"
      }),
      { "x-gateway-retry-attempt-count": "2" }
    )
    assert.deepStrictEqual(GatewayError.toHttp(error).headers, {
      "x-gateway-retry-attempt-count": "2",
      "x-gateway-provider": "openai"
    })
  })

  it("leaves the gateway's own errors without gateway headers", () => {
    const error = GatewayError.withGatewayHeaders(new GatewayError.NotFound({ message: "m" }), { a: "b" })
    assert.deepStrictEqual(GatewayError.toHttp(error).headers, {})
  })

  it("keeps every upstream failure's message when it adds gateway headers", () => {
    const headers = { "x-gateway-provider": "openai" }
    const failures: ReadonlyArray<[GatewayError.GatewayError, string]> = [
      [
        new GatewayError.UpstreamUnreachable({ provider: "openai", message: "connect ECONNREFUSED 127.0.0.1:9" }),
        "openai: connect ECONNREFUSED 127.0.0.1:9"
      ],
      [
        new GatewayError.TargetsUnavailable({ message: "every target's circuit is open" }),
        "every target's circuit is open"
      ]
    ]
    for (const [failure, message] of failures) {
      const { body } = GatewayError.toHttp(GatewayError.withGatewayHeaders(failure, headers))
      assert.strictEqual(body.error.message, message)
    }
  })

  it("answers 408 for a slow client and 503 when the gateway cannot serve, each with its message", () => {
    const slow = GatewayError.toHttp(new GatewayError.ClientTimeout({ message: "body: did not arrive within 60 s" }))
    assert.strictEqual(slow.status, 408)
    assert.deepStrictEqual(slow.body.error, {
      message: "body: did not arrive within 60 s",
      type: "invalid_request_error",
      param: null,
      code: "request_timeout"
    })
    const stopping = GatewayError.toHttp(new GatewayError.Unavailable({ message: "shutting down" }))
    assert.strictEqual(stopping.status, 503)
    assert.deepStrictEqual(stopping.body.error, {
      message: "shutting down",
      type: "server_error",
      param: null,
      code: "unavailable"
    })
  })

  it("answers a package's own error as the error itself says, without core knowing it", () => {
    class LimitReached extends Data.TaggedError("LimitReached")<{ readonly message: string }> {
      [GatewayError.HttpAnswer](): GatewayError.HttpFailure {
        return {
          status: 412,
          body: GatewayError.envelope(this.message, "limit_error", null, "limit_reached"),
          headers: { "x-limit": "1" }
        }
      }
    }
    const error: GatewayError.GatewayError = new LimitReached({ message: "policy p-1: budget spent" })
    assert.deepStrictEqual(GatewayError.toHttp(error), {
      status: 412,
      body: { error: { message: "policy p-1: budget spent", type: "limit_error", param: null, code: "limit_reached" } },
      headers: { "x-limit": "1" }
    })
    assert.isFalse(GatewayError.isUpstreamFailure(error))
    assert.isUndefined(GatewayError.upstreamStatusOf(error))
  })

  it("never answers an empty message, whatever the error", () => {
    const errors: ReadonlyArray<GatewayError.GatewayError> = [
      new GatewayError.InvalidRequest({ message: "model: is required", param: "model" }),
      new GatewayError.Unauthorized({ message: "no key" }),
      new GatewayError.Forbidden({ message: "lacks completions" }),
      new GatewayError.NotFound({ message: "no config pc-1" }),
      new GatewayError.Conflict({ message: "slug taken", param: "slug" }),
      new GatewayError.UpstreamTimeout({ provider: "openai", timeoutMs: 5 }),
      new GatewayError.ClientTimeout({ message: "body: did not arrive within 60 s" }),
      new GatewayError.PayloadTooLarge({ limitBytes: 10 }),
      new GatewayError.UpstreamStatus({ provider: "openai", status: 500, body: "", headers: {} }),
      new GatewayError.UpstreamUnreachable({ provider: "openai", message: "connect ECONNREFUSED 127.0.0.1:9" }),
      new GatewayError.TargetsUnavailable({ message: "every target's circuit is open" }),
      new GatewayError.Unavailable({ message: "shutting down" }),
      new GatewayError.InternalError({ message: "disk full" })
    ]
    for (const error of errors) {
      const message = GatewayError.toHttp(GatewayError.withGatewayHeaders(error, { "x-gateway-provider": "p" })).body
        .error.message
      assert.isAbove(message.length, 0, error._tag)
      assert.notMatch(message, /: $/, error._tag)
    }
  })
})
