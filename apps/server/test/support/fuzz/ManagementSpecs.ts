/**
 * The management routes as data: each route's method and path, a valid body, the type of each
 * member and which are required. The bodies are closed: a member no one knows is refused.
 */
import fc from "fast-check"
import { validConfig } from "./Configs.ts"
import type { World } from "./FuzzRequest.ts"
import type { JsonRecord, Kind } from "./JsonText.ts"
import { words } from "./Lists.ts"

export interface ManagementSpec {
  readonly name: string
  readonly method: "POST" | "PUT"
  readonly path: (world: World) => string
  readonly base: (world: World) => fc.Arbitrary<JsonRecord>
  readonly fields: Readonly<Record<string, Kind>>
  readonly required: ReadonlyArray<string>
}

const SCOPES = words(
  "admin completions prompts.read prompts.write assistants files batches policies.read policies.write configs keys logs.read"
)
const credentialFields: Readonly<Record<string, Kind>> = {
  provider: "string",
  api_key: "string",
  custom_host: "string",
  deployments: "array",
  cloud2_service_account_json: "object",
  Authorization: "string"
}
export const managementSpecs: ReadonlyArray<ManagementSpec> = [
  {
    name: "api-keys",
    method: "POST",
    path: () => "/v1/api-keys",
    base: () => fc.subarray([...SCOPES], { minLength: 1 }).map((scopes) => ({ name: "fuzz", scopes })),
    fields: { name: "string", scopes: "array", workspace_id: "string", expires_at: "number" },
    required: ["name", "scopes"]
  },
  {
    name: "configs",
    method: "POST",
    path: () => "/v1/configs",
    base: (world) => validConfig(world).map((config) => ({ name: "fuzz", config })),
    fields: { name: "string", config: "object" },
    required: ["name", "config"]
  },
  {
    name: "configs (update)",
    method: "PUT",
    path: (world) => `/v1/configs/${world.configId}`,
    base: (world) => validConfig(world).map((config) => ({ config })),
    fields: { name: "string", config: "object" },
    required: []
  },
  {
    name: "integrations",
    method: "POST",
    path: () => "/v1/integrations",
    // a slug the inference fuzz never names, so no integration made here is ever used
    base: (world) =>
      fc.nat().map((n) => ({
        slug: `fz-int-${n}`,
        provider: "openai",
        api_key: "sk-fuzz",
        custom_host: world.fakeUrl
      })),
    fields: { slug: "string", name: "string", ...credentialFields },
    required: ["slug", "provider"]
  },
  {
    name: "virtual-keys",
    method: "POST",
    path: () => "/v1/virtual-keys",
    base: (world) => fc.constant({ name: "fuzz", provider: "openai", api_key: "sk-fuzz", custom_host: world.fakeUrl }),
    fields: { name: "string", ...credentialFields },
    required: ["name", "provider"]
  },
  {
    name: "guardrails",
    method: "POST",
    path: () => "/v1/guardrails",
    base: () => fc.constant({ name: "fuzz", checks: [{ id: "default.wordCount", parameters: { minWords: 1 } }] }),
    fields: {
      name: "string",
      checks: "array",
      type: "string",
      deny: "boolean",
      async: "boolean",
      on_fail: "object",
      on_success: "object"
    },
    required: ["name", "checks"]
  },
  {
    name: "prompts",
    method: "POST",
    path: () => "/v1/prompts",
    base: () =>
      fc.constant({ name: "fuzz", model: "gpt-4o-mini", template: [{ role: "user", content: "Hi {{name}}" }] }),
    fields: {
      name: "string",
      template: "array",
      model: "string",
      provider: "string",
      integration: "string",
      parameters: "object",
      partials: "object"
    },
    required: ["name", "template"]
  },
  {
    name: "assistants",
    method: "POST",
    path: () => "/v1/assistants",
    base: () => fc.constant({ model: "gpt-4o-mini", instructions: "Be brief." }),
    fields: {
      model: "string",
      name: "string",
      description: "string",
      instructions: "string",
      tools: "array",
      metadata: "object",
      temperature: "number",
      top_p: "number"
    },
    required: ["model"]
  }
]
