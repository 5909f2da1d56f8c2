import { assert, describe, it } from "@effect/vitest"
import { CircuitKey } from "@switchyard/circuit-breaker"
import { SECRET } from "./support/Upstream.ts"

const base = { provider: "openai", api_key: SECRET }

describe("CircuitKey", () => {
  it("names provider, host, model and a 16-hex credential id, never the secret", () => {
    const key = CircuitKey.of({
      ...base,
      custom_host: "https://llm.example.com/v1/",
      override_params: { model: "gpt-4o" }
    })
    const [provider, host, model, credential] = JSON.parse(key)
    assert.deepStrictEqual([provider, host, model], ["openai", "https://llm.example.com/v1", "gpt-4o"])
    assert.match(credential, /^[0-9a-f]{16}$/)
    assert.notInclude(key, SECRET)
    assert.notInclude(key, SECRET.slice(0, 12))
  })

  it("keeps every kind of credential out of the key", () => {
    const key = CircuitKey.of({
      provider: "bedrock",
      cloud1_access_key_id: "AKIA-secret-id",
      cloud1_secret_access_key: "aws-secret-key",
      cloud1_region: "eu-west-1",
      Authorization: "Bearer token-secret"
    })
    for (const secret of ["AKIA-secret-id", "aws-secret-key", "token-secret"]) assert.notInclude(key, secret)
    assert.include(key, "cloud1_region=eu-west-1")
  })

  it("uses the provider's default host and any model when the target pins neither", () => {
    assert.deepStrictEqual(JSON.parse(CircuitKey.of(base)).slice(0, 3), ["openai", "default", "*"])
  })

  it("gives different credentials different ids, and the same credential one id", () => {
    assert.notStrictEqual(CircuitKey.credentialId(base), CircuitKey.credentialId({ ...base, api_key: "sk-other" }))
    assert.strictEqual(CircuitKey.credentialId(base), CircuitKey.credentialId({ ...base }))
  })

  it("treats a bearer Authorization as the same credential as that api_key", () => {
    assert.strictEqual(
      CircuitKey.credentialId(base),
      CircuitKey.credentialId({ provider: "openai", Authorization: `Bearer ${SECRET}` })
    )
  })

  it("gives a target without credentials the id none", () => {
    assert.strictEqual(CircuitKey.credentialId({ provider: "ollama" }), "none")
  })

  it("reads a service account in any key order as one credential", () => {
    const a = CircuitKey.credentialId({
      provider: "vertex-ai",
      cloud2_service_account_json: { a: 1, b: { c: 2, d: 3 } }
    })
    const b = CircuitKey.credentialId({
      provider: "vertex-ai",
      cloud2_service_account_json: { b: { d: 3, c: 2 }, a: 1 }
    })
    assert.strictEqual(a, b)
  })
})
