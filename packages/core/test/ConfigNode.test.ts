import { assert, describe, it } from "@effect/vitest"
import { ConfigNode } from "@switchyard/core"
import type { GatewayConfig } from "@switchyard/protocol"

/** Every field a target takes from its ancestors, each with a value of its own. */
const inheritable = {
  strict_vendor_compliance: true,
  provider: "openai",
  api_key: "sk-parent",
  virtual_key: "vk-parent",
  custom_host: "https://proxy.example/v1",
  prompt_id: "pp-1",
  override_params: { temperature: 0.2 },
  request_timeout: 1500,
  forward_headers: ["x-team"],
  cache: { mode: "simple", max_age: 60 },
  retry: { attempts: 2, on_status_codes: [429] },
  cb_config: { failure_threshold: 3, cooldown_interval: 30000 },
  before_request_hooks: [{ id: "before" }],
  after_request_hooks: [{ id: "after" }],
  input_guardrails: ["input-guard"],
  output_guardrails: ["output-guard"],
  resource_name: "resource",
  deployment_id: "deployment",
  api_version: "2024-10-21",
  deployments: [{ deployment_id: "d1", alias: "gpt", api_version: "2024-10-21" }],
  vendor_organization: "org-1",
  vendor_project: "proj-1",
  cloud1_access_key_id: "AKIA",
  cloud1_secret_access_key: "secret",
  cloud1_region: "us-east-1",
  cloud1_session_token: "session",
  cloud2_project_id: "project",
  cloud2_region: "europe-west4",
  cloud2_service_account_json: { type: "service_account" },
  cloud3_region: "eastus",
  cloud3_deployment_name: "dep",
  cloud3_deployment_type: "serverless",
  cloud3_endpoint_name: "endpoint",
  cloud3_api_version: "2024-05-01",
  cloud3_resource_name: "res",
  cloud3_deployment_id: "dep-id",
  cloud3_model_name: "model",
  Authorization: "Bearer sk-auth"
} as const satisfies GatewayConfig.GatewayConfig

const parent: GatewayConfig.GatewayConfig = {
  ...inheritable,
  strategy: { mode: "fallback", on_status_codes: [500] },
  targets: [{ provider: "groq", api_key: "sk-groq" }],
  weight: 3,
  name: "parent",
  on_status_codes: [502]
}

describe("ConfigNode.inherit", () => {
  it("passes every inheritable field down to a child that sets none", () => {
    assert.deepStrictEqual<unknown>(ConfigNode.inherit(parent, {}), inheritable)
  })

  it("does not pass strategy, targets, weight, name or on_status_codes down", () => {
    const child = ConfigNode.inherit(parent, {})
    for (const field of ["strategy", "targets", "weight", "name", "on_status_codes"]) {
      assert.isFalse(Object.hasOwn(child, field), field)
    }
  })

  it("keeps the child's own value of a field both set", () => {
    const child = ConfigNode.inherit(parent, { provider: "groq", api_key: "sk-child", request_timeout: 10 })
    assert.strictEqual(child.provider, "groq")
    assert.strictEqual(child.api_key, "sk-child")
    assert.strictEqual(child.request_timeout, 10)
  })

  it("keeps the child's own strategy, targets, weight and name", () => {
    const own: GatewayConfig.GatewayConfig = {
      strategy: { mode: "single" },
      targets: [{ provider: "openai", api_key: "sk" }],
      weight: 1,
      name: "child"
    }
    const child = ConfigNode.inherit(parent, own)
    assert.deepStrictEqual(child.strategy, { mode: "single" })
    assert.deepStrictEqual(child.targets, own.targets)
    assert.strictEqual(child.weight, 1)
    assert.strictEqual(child.name, "child")
  })

  it("does not let a child's undefined field hide the parent's value", () => {
    assert.strictEqual(ConfigNode.inherit(parent, { api_key: undefined }).api_key, "sk-parent")
  })

  it("merges override_params key by key, the child's value winning", () => {
    const child = ConfigNode.inherit(
      { override_params: { temperature: 0.2, max_tokens: 100 } },
      { override_params: { temperature: 0.9, top_p: 0.5 } }
    )
    assert.deepStrictEqual(child.override_params, { temperature: 0.9, max_tokens: 100, top_p: 0.5 })
  })

  it("merges override_params over three levels, the nearest setting winning", () => {
    const root = { override_params: { temperature: 0.1, max_tokens: 10, user: "root" } }
    const middle = ConfigNode.inherit(root, { override_params: { temperature: 0.5, max_tokens: 20 } })
    const leaf = ConfigNode.inherit(middle, { override_params: { temperature: 0.9 } })
    assert.deepStrictEqual(leaf.override_params, { temperature: 0.9, max_tokens: 20, user: "root" })
  })

  it("returns the child as it is when there is no parent", () => {
    const own = { provider: "openai", weight: 2 }
    assert.strictEqual(ConfigNode.inherit(undefined, own), own)
  })
})
