// Strategy conditions have a `then` member by the interface; these objects are never awaited.
/* oxlint-disable unicorn/no-thenable */
import { assert, describe, expect, it } from "@effect/vitest"
import { GatewayConfig } from "@switchyard/protocol"
import { Effect, Result } from "effect"
import fc from "fast-check"
import { accepts, rejects } from "./support/Decode.ts"

const decode = GatewayConfig.decodeResult
const vk = { virtual_key: "vk" }

describe("GatewayConfig", () => {
  it("accepts a config with every kind of member", () => {
    accepts(decode, {
      name: "prod",
      strategy: { mode: "fallback", on_status_codes: [429, 503] },
      targets: [
        { provider: "openai", api_key: "sk", weight: 0.7, override_params: { model: "gpt-4o", temperature: 0 } },
        {
          provider: "bedrock",
          cloud1_access_key_id: "AKIA",
          cloud1_secret_access_key: "s",
          cloud1_region: "us-east-1",
          cloud1_session_token: "t"
        },
        {
          provider: "azure",
          api_key: "k",
          resource_name: "r",
          deployments: [{ deployment_id: "d", alias: "a", api_version: "v", is_default: true }]
        },
        {
          provider: "azure-ai",
          cloud3_endpoint_name: "e",
          cloud3_deployment_type: "managed",
          Authorization: "Bearer k"
        }
      ],
      strict_vendor_compliance: false,
      request_timeout: 30000,
      forward_headers: ["x-team"],
      cache: { mode: "semantic", max_age: 0 },
      retry: { attempts: 5, on_status_codes: [429], use_retry_after_headers: true },
      cb_config: { failure_threshold: 1, cooldown_interval: 30000, failure_status_codes: [500, 502] },
      before_request_hooks: [{
        id: "pii",
        type: "mutator",
        checks: [{ id: "default.piiDetection", parameters: { redact: true } }],
        on_fail: { feedback: { value: -1, weight: 1, metadata: {} }, deny: true },
        on_success: { feedback: { value: 1 } }
      }],
      after_request_hooks: [{
        id: "log",
        async: true,
        checks: [{ id: "log", parameters: {} }],
        on_fail: { feedback: { value: 0 } }
      }],
      input_guardrails: ["stored", {
        id: "inline",
        deny: true,
        async: false,
        "default.wordCount": { maxWords: 100 },
        on_fail: { feedback: { value: 0 } }
      }],
      output_guardrails: [{
        on_fail: { feedback: { value: 0 }, deny: true },
        "default.contains": { words: ["x"], operator: "none" }
      }]
    })
  })

  describe("unknown members are rejected at every level", () => {
    const cases: ReadonlyArray<readonly [string, unknown, string]> = [
      ["at the top", { ...vk, temprature: 1 }, "config.temprature"],
      ["in strategy", { strategy: { mode: "single", fallback: true }, targets: [vk] }, "config.strategy.fallback"],
      ["in cache", { cache: { mode: "simple", ttl: 5 } }, "config.cache.ttl"],
      ["in retry", { retry: { attempts: 1, backoff: "x" } }, "config.retry.backoff"],
      [
        "in cb_config",
        { ...vk, cb_config: { failure_threshold: 1, cooldown_interval: 30000, x: 1 } },
        "config.cb_config.x"
      ],
      ["in a condition", {
        strategy: { mode: "conditional", conditions: [{ query: {}, then: "a", else: "b" }], default: "a" },
        targets: [{ name: "a", ...vk }]
      }, "config.strategy.conditions[0].else"],
      [
        "in a deployment",
        { ...vk, deployments: [{ deployment_id: "d", alias: "a", api_version: "v", region: "x" }] },
        "config.deployments[0].region"
      ],
      ["in a hook", { before_request_hooks: [{ id: "h", when: "always" }] }, "config.before_request_hooks[0].when"],
      [
        "in a hook check",
        { before_request_hooks: [{ id: "h", checks: [{ id: "c", parameters: {}, x: 1 }] }] },
        "config.before_request_hooks[0].checks[0].x"
      ],
      [
        "deny in an after hook's on_fail",
        { after_request_hooks: [{ id: "h", on_fail: { deny: true } }] },
        "config.after_request_hooks[0].on_fail.deny"
      ],
      [
        "in feedback",
        { before_request_hooks: [{ id: "h", on_fail: { feedback: { score: 1 } } }] },
        "config.before_request_hooks[0].on_fail.feedback.score"
      ],
      [
        "deny in an input guardrail's on_fail",
        { input_guardrails: [{ on_fail: { deny: true } }] },
        "config.input_guardrails[0].on_fail.deny"
      ],
      ["at depth 3 of nested targets", {
        strategy: { mode: "fallback" },
        targets: [vk, {
          strategy: { mode: "loadbalance" },
          targets: [vk, { virtual_key: "b", retry: { attempts: 1, foo: 1 } }]
        }]
      }, "config.targets[1].targets[1].retry.foo"]
    ]
    for (const [name, config, param] of cases) {
      it(`rejects one ${name}`, () => void rejects(decode, config, param, "unknown field"))
    }
  })

  describe("bounds", () => {
    it("accepts retry attempts 0 and 5 and rejects 6 and -1", () => {
      accepts(decode, { retry: { attempts: 0 } })
      accepts(decode, { retry: { attempts: 5 } })
      rejects(decode, { retry: { attempts: 6 } }, "config.retry.attempts", "must be between 0 and 5 (got 6)")
      rejects(decode, { retry: { attempts: -1 } }, "config.retry.attempts", "must be between 0 and 5 (got -1)")
      rejects(decode, { retry: { attempts: 1.5 } }, "config.retry.attempts", "must be an integer")
    })
    it("accepts failure_threshold 1 and rejects 0 and a fraction", () => {
      accepts(decode, { ...vk, cb_config: { failure_threshold: 1, cooldown_interval: 30000 } })
      rejects(
        decode,
        { ...vk, cb_config: { failure_threshold: 0, cooldown_interval: 30000 } },
        "config.cb_config.failure_threshold",
        "must be at least 1 (got 0)"
      )
      rejects(
        decode,
        { ...vk, cb_config: { failure_threshold: 1.5, cooldown_interval: 30000 } },
        "config.cb_config.failure_threshold",
        "must be an integer (got 1.5)"
      )
    })
    it("accepts cooldown_interval 30000 and rejects 29999", () => {
      rejects(
        decode,
        { ...vk, cb_config: { failure_threshold: 1, cooldown_interval: 29999 } },
        "config.cb_config.cooldown_interval",
        "must be at least 30000 (got 29999)"
      )
    })
    it("requires failure_threshold and cooldown_interval", () => {
      rejects(
        decode,
        { ...vk, cb_config: { cooldown_interval: 30000 } },
        "config.cb_config.failure_threshold",
        "is required"
      )
    })
    it("accepts status codes 100 and 599 and rejects 99, 600 and 500.5", () => {
      accepts(decode, { ...vk, on_status_codes: [100, 599] })
      rejects(
        decode,
        { ...vk, on_status_codes: [99] },
        "config.on_status_codes[0]",
        "must be between 100 and 599 (got 99)"
      )
      rejects(
        decode,
        { retry: { attempts: 1, on_status_codes: [429, 600] } },
        "config.retry.on_status_codes[1]",
        "must be between 100 and 599 (got 600)"
      )
      rejects(
        decode,
        { ...vk, strategy: { mode: "fallback", on_status_codes: [500.5] }, targets: [vk] },
        "config.strategy.on_status_codes[0]",
        "must be an integer"
      )
    })
    it("accepts weight 0 and rejects a negative weight", () => {
      accepts(decode, { ...vk, weight: 0 })
      rejects(decode, { ...vk, weight: -0.1 }, "config.weight", "must be at least 0 (got -0.1)")
    })
    it("accepts request_timeout 1 and rejects 0 and 1.5", () => {
      accepts(decode, { request_timeout: 1 })
      rejects(decode, { request_timeout: 0 }, "config.request_timeout", "must be at least 1 (got 0)")
      rejects(decode, { request_timeout: 1.5 }, "config.request_timeout", "must be an integer")
    })
    it("accepts cache max_age 0 and rejects -1", () => {
      rejects(decode, { cache: { mode: "simple", max_age: -1 } }, "config.cache.max_age", "must be at least 0 (got -1)")
    })
  })

  describe("field types", () => {
    const cases: ReadonlyArray<readonly [string, unknown, string, string]> = [
      [
        "a bad strategy mode",
        { strategy: { mode: "random" }, targets: [vk] },
        "config.strategy.mode",
        "must be one of \"single\", \"loadbalance\", \"fallback\", \"conditional\" (got \"random\")"
      ],
      [
        "a bad cache mode",
        { cache: { mode: "exact" } },
        "config.cache.mode",
        "must be one of \"simple\", \"semantic\""
      ],
      [
        "a bad cloud3_deployment_type",
        { ...vk, cloud3_deployment_type: "dedicated" },
        "config.cloud3_deployment_type",
        "must be one of \"serverless\", \"managed\""
      ],
      [
        "a deployment without alias",
        { ...vk, deployments: [{ deployment_id: "d", api_version: "v" }] },
        "config.deployments[0].alias",
        "is required"
      ],
      [
        "a hook without id",
        { before_request_hooks: [{ type: "guardrail" }] },
        "config.before_request_hooks[0].id",
        "is required"
      ],
      [
        "a hook check without parameters",
        { before_request_hooks: [{ id: "h", checks: [{ id: "c" }] }] },
        "config.before_request_hooks[0].checks[0].parameters",
        "is required"
      ],
      [
        "a bad hook type",
        { before_request_hooks: [{ id: "h", type: "filter" }] },
        "config.before_request_hooks[0].type",
        "must be one of \"guardrail\", \"mutator\""
      ],
      [
        "a guardrail check whose parameters are not an object",
        { input_guardrails: [{ "default.wordCount": [1] }] },
        "config.input_guardrails[0][\"default.wordCount\"]",
        "must be an object"
      ],
      [
        "a guardrail that is a number",
        { input_guardrails: [5] },
        "config.input_guardrails[0]",
        "must be a guardrail id or a guardrail object (got 5)"
      ],
      [
        "an Authorization without Bearer",
        { ...vk, Authorization: "sk-1" },
        "config.Authorization",
        "must have the form Bearer <API_KEY>"
      ],
      [
        "a string api_key of the wrong type",
        { provider: "openai", api_key: 12 },
        "config.api_key",
        "must be a string (got 12)"
      ],
      [
        "targets that are not an array",
        { strategy: { mode: "single" }, targets: {} },
        "config.targets",
        "must be an array (got an object)"
      ],
      ["a config that is not an object", "pc-123", "config", "must be an object (got a string)"]
    ]
    for (const [name, config, param, rule] of cases) {
      it(`rejects ${name}`, () => void rejects(decode, config, param, rule))
    }
  })

  it("never echoes a misplaced secret", () => {
    const error = rejects(
      decode,
      { provider: "openai", api_key: "sk-1", Authorization: "sk-very-secret" },
      "config.Authorization",
      "Bearer"
    )
    assert.notInclude(error.message, "sk-very-secret")
  })

  describe("conditional strategy", () => {
    it("rejects conditional mode without conditions and default", () => {
      rejects(
        decode,
        { strategy: { mode: "conditional" }, targets: [vk] },
        "config.strategy",
        "conditional mode requires conditions and default"
      )
    })
    it("rejects conditional mode without default", () => {
      rejects(
        decode,
        { strategy: { mode: "conditional", conditions: [] }, targets: [vk] },
        "config.strategy",
        "conditional mode requires conditions and default (missing default)"
      )
    })
    it("rejects conditional mode without conditions", () => {
      rejects(
        decode,
        { strategy: { mode: "conditional", default: "a" }, targets: [{ name: "a", ...vk }] },
        "config.strategy",
        "(missing conditions)"
      )
    })
  })

  it.effect("decode fails with an InvalidInput whose param starts with config", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(GatewayConfig.decode({ retry: { attempts: 9 } }))
      assert.strictEqual(error.param, "config.retry.attempts")
      assert.strictEqual(error.message, "config.retry.attempts: must be between 0 and 5 (got 9)")
    }))

  describe("properties", () => {
    const credentials = fc.oneof(
      fc.record({ provider: fc.constantFrom("openai", "anthropic", "@prod-openai"), api_key: fc.string() }),
      fc.record({ virtual_key: fc.string() }),
      fc.record({ provider: fc.constant("ollama"), custom_host: fc.constant("http://localhost:11434") }),
      fc.record({ provider: fc.constant("vertex-ai"), cloud2_region: fc.string(), cloud2_project_id: fc.string() })
    )
    const modifiers = fc.record({
      retry: fc.record({
        attempts: fc.integer({ min: 0, max: 5 }),
        on_status_codes: fc.array(fc.integer({ min: 100, max: 599 }))
      }, { requiredKeys: ["attempts"] }),
      cache: fc.record({ mode: fc.constantFrom("simple", "semantic"), max_age: fc.nat() }, { requiredKeys: ["mode"] }),
      cb_config: fc.record({
        failure_threshold: fc.integer({ min: 1, max: 100 }),
        cooldown_interval: fc.integer({ min: 30000, max: 600000 })
      }),
      request_timeout: fc.integer({ min: 1, max: 600000 }),
      weight: fc.double({ min: 0, max: 100, noNaN: true }),
      override_params: fc.record({ temperature: fc.double({ min: 0, max: 2, noNaN: true }) })
    }, { requiredKeys: [] })
    const leaf = fc.tuple(credentials, modifiers).map(([c, m]) => ({ ...m, ...c }))
    const tree = (depth: number): fc.Arbitrary<Record<string, unknown>> =>
      depth === 0 ? leaf : fc.oneof(
        leaf,
        fc.tuple(
          fc.constantFrom("single", "loadbalance", "fallback", "conditional"),
          fc.array(tree(depth - 1), { minLength: 1, maxLength: 3 }),
          modifiers
        )
          .map(([mode, children, m]) => {
            const targets = children.map((child, index) => ({ ...child, name: `t${index}` }))
            const strategy = mode === "conditional"
              ? {
                mode,
                conditions: targets.map((t) => ({ query: { "metadata.plan": t.name }, then: t.name })),
                default: "t0"
              }
              : { mode }
            return { ...m, strategy, targets }
          })
      )
    it("accepts random valid config trees of depth up to 3", () => {
      fc.assert(fc.property(tree(3), (config) => {
        const result = decode(config)
        return Result.isSuccess(result) || assert.fail(result.failure.message)
      }))
    })
    it("rejects any tree with an unknown member in a leaf's retry, naming its path", () => {
      fc.assert(fc.property(leaf, fc.string({ minLength: 1 }).map((k) => `x${k}`), (config, key) => {
        const result = decode({ ...config, retry: { attempts: 1, [key]: true } })
        return Result.isFailure(result) && result.failure.message.endsWith("unknown field") &&
          result.failure.param !== null && result.failure.param.startsWith("config.retry")
      }))
    })
  })
})

describe("GatewayConfig depth", () => {
  const leaf = { provider: "openai", api_key: "sk" }
  const chain = (depth: number): unknown =>
    depth === 0 ? leaf : { strategy: { mode: "fallback" }, targets: [leaf, chain(depth - 1)] }

  it("accepts 10 strategy nodes on one path", () => {
    accepts(decode, chain(10))
  })

  it("refuses an 11th strategy node on one path, naming where it is", () => {
    const path = "config" + ".targets[1]".repeat(10)
    rejects(decode, chain(11), path, "is the 11th strategy node")
  })

  it("answers a deep tree at once, before decoding any member", () => {
    const started = performance.now()
    rejects(decode, chain(40), "config" + ".targets[1]".repeat(10), "at most 10 are allowed")
    expect(performance.now() - started).toBeLessThan(1_000)
  })

  it("refuses a credential the HTTP client could not send in a header, naming the field", () => {
    for (
      const field of [
        "api_key",
        "vendor_organization",
        "vendor_project",
        "cloud1_access_key_id",
        "cloud1_session_token"
      ]
    ) {
      for (const value of ["sk-\u00e9", "sk-\u{1F600}", "sk\nInjected: 1", "sk\u0000"]) {
        rejects(decode, { provider: "openai", [field]: value }, `config.${field}`, "must be printable ASCII")
      }
    }
    rejects(
      decode,
      { provider: "azure-ai", Authorization: "Bearer k\u00e9" },
      "config.Authorization",
      "printable ASCII"
    )
    accepts(decode, { provider: "openai", api_key: "sk-proj-AZaz09_-.~+/=" })
  })
})
