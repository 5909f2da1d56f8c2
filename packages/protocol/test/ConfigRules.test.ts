// Strategy conditions have a `then` member by the interface; these objects are never awaited.
/* oxlint-disable unicorn/no-thenable */
import { assert, describe, it } from "@effect/vitest"
import { ConfigRules, GatewayConfig } from "@switchyard/protocol"
import { accepts, rejects } from "./support/Decode.ts"

const decode = GatewayConfig.decodeResult

// A value for every field that appears in a combination.
const sample: { readonly [field: string]: unknown } = {
  provider: "openai",
  api_key: "sk-1",
  custom_host: "http://localhost:11434",
  virtual_key: "vk-1",
  strategy: { mode: "fallback" },
  targets: [{ virtual_key: "vk-2" }],
  cache: { mode: "simple" },
  retry: { attempts: 2 },
  prompt_id: "pp-1",
  forward_headers: ["x-team"],
  request_timeout: 10000,
  cloud1_access_key_id: "AKIA",
  cloud1_secret_access_key: "secret",
  cloud2_region: "europe-west4",
  cloud2_service_account_json: { type: "service_account" },
  cloud2_project_id: "proj",
  cloud3_deployment_name: "dep",
  cloud3_deployment_type: "serverless",
  cloud3_region: "eastus",
  cloud3_api_version: "2024-05-01",
  cloud3_endpoint_name: "endpoint",
  after_request_hooks: [{ id: "h1" }],
  before_request_hooks: [{ id: "h2" }],
  input_guardrails: ["g1"],
  output_guardrails: ["g2"]
}

const only = (fields: ReadonlyArray<string>) => Object.fromEntries(fields.map((field) => [field, sample[field]]))

describe("ConfigRules", () => {
  it("lists the 18 combinations of the interface", () => {
    assert.strictEqual(ConfigRules.fieldCombinations.length, 18)
  })

  describe("each of the 18 combinations is a valid config on its own", () => {
    ConfigRules.fieldCombinations.forEach((combination, index) => {
      it(`${index + 1}. ${combination.join(" + ")}`, () => void accepts(decode, only(combination)))
    })
  })

  describe("a config that satisfies no combination", () => {
    it("is rejected at the config with the whole list", () => {
      const error = rejects(
        decode,
        {},
        "config",
        "must contain at least one of: provider+api_key, provider+custom_host, virtual_key, strategy+targets, cache, retry"
      )
      assert.include(error.message, "output_guardrails")
    })
    it("says what is missing from the combinations it partly holds", () => {
      rejects(decode, { provider: "openai" }, "config", "partly present: provider+api_key (missing api_key)")
    })
    it("counts name, weight and override_params as no combination", () => {
      rejects(
        decode,
        { name: "a", weight: 1, override_params: { model: "m" } },
        "config",
        "must contain at least one of"
      )
    })
    it("checks a combination made only of the cloud2 region as incomplete", () => {
      rejects(
        decode,
        { provider: "vertex-ai", cloud2_region: "r" },
        "config",
        "provider+cloud2_region+cloud2_project_id (missing cloud2_project_id)"
      )
    })
  })

  describe("rule 1: single-provider mode", () => {
    it("accepts provider with api_key", () => void accepts(decode, { provider: "openai", api_key: "k" }))
    it("accepts virtual_key alone", () => void accepts(decode, { virtual_key: "vk" }))
    it("accepts a pure modifier config without provider", () => {
      accepts(decode, { cache: { mode: "semantic" }, retry: { attempts: 1 }, request_timeout: 5000 })
    })
    it("rejects a provider without credentials even when a modifier completes a combination", () => {
      rejects(
        decode,
        { provider: "openai", retry: { attempts: 2 } },
        "config",
        "single-provider mode (no strategy) needs provider with one of: api_key, custom_host"
      )
    })
    it("accepts a provider whose credentials are a virtual key", () => {
      accepts(decode, { provider: "openai", virtual_key: "vk", retry: { attempts: 2 } })
    })
  })

  describe("rule 3: strategies and targets", () => {
    it("requires targets when a strategy is given", () => {
      rejects(
        decode,
        { strategy: { mode: "loadbalance" }, cache: { mode: "simple" } },
        "config.targets",
        "is required when strategy is given"
      )
    })
    it("requires at least one target when a strategy is given", () => {
      rejects(
        decode,
        { strategy: { mode: "fallback" }, targets: [] },
        "config.targets",
        "must have at least 1 item when strategy is given"
      )
    })
    it("requires a strategy for targets without provider or virtual_key", () => {
      rejects(
        decode,
        { retry: { attempts: 1 }, targets: [{ virtual_key: "a" }] },
        "config.strategy",
        "is required when targets are given without provider or virtual_key"
      )
    })
    it("lets a provider config carry targets without a strategy", () => {
      accepts(decode, { provider: "openai", api_key: "k", targets: [{ virtual_key: "a" }] })
    })
    it("accepts targets that nest further strategies", () => {
      accepts(decode, {
        strategy: { mode: "fallback" },
        targets: [
          {
            strategy: { mode: "loadbalance" },
            targets: [{ virtual_key: "a", weight: 2 }, { virtual_key: "b", weight: 1 }]
          },
          { provider: "anthropic", api_key: "k" }
        ]
      })
    })
  })

  describe("inheritance", () => {
    it("lets a target rely on its parent's credentials", () => {
      accepts(decode, {
        provider: "openai",
        api_key: "k",
        strategy: { mode: "loadbalance" },
        targets: [{ override_params: { model: "gpt-4o" } }, { override_params: { model: "gpt-4o-mini" } }]
      })
    })
    it("checks a target that inherits nothing on its own", () => {
      rejects(
        decode,
        { strategy: { mode: "fallback" }, targets: [{ virtual_key: "a" }, { override_params: { model: "m" } }] },
        "config.targets[1]",
        "must contain at least one of"
      )
    })
    it("does not pass strategy and targets down", () => {
      rejects(
        decode,
        {
          strategy: { mode: "fallback" },
          targets: [{ strategy: { mode: "single" }, targets: [{ name: "only" }] }]
        },
        "config.targets[0].targets[0]",
        "must contain at least one of"
      )
    })
  })

  describe("conditional mode", () => {
    const targets = [{ name: "fast", virtual_key: "a" }, { name: "smart", virtual_key: "b" }]
    it("accepts conditions and a default that name targets", () => {
      accepts(decode, {
        strategy: {
          mode: "conditional",
          conditions: [{ query: { "metadata.plan": { $eq: "pro" } }, then: "smart" }],
          default: "fast"
        },
        targets
      })
    })
    it("rejects a condition naming no target", () => {
      rejects(
        decode,
        {
          strategy: { mode: "conditional", conditions: [{ query: {}, then: "cheap" }], default: "fast" },
          targets
        },
        "config.strategy.conditions[0].then",
        "must name a target (no target is named \"cheap\")"
      )
    })
    it("rejects a default naming no target", () => {
      rejects(
        decode,
        {
          strategy: { mode: "conditional", conditions: [{ query: {}, then: "smart" }], default: "cheap" },
          targets
        },
        "config.strategy.default",
        "must name a target"
      )
    })
  })
})
