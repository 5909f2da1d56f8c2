/**
 * What makes two requests "the same" for the cache. A key is the SHA-256 of a canonical JSON (object
 * keys sorted, so key order never matters) of: the endpoint, the target's identity, the workspace,
 * the namespace and the provider-bound body without the fields that do not change the answer.
 */
import type { GatewayRequest, ProviderTarget } from "@switchyard/core"
import { createHash } from "node:crypto"

/** Request header: entries are shared only within one namespace (default: none). */
export const NAMESPACE_HEADER = "x-gateway-cache-namespace"

/**
 * Body fields that never count: how the answer is delivered (`stream`, `stream_options`), and
 * who asked or how it is filed (`user`, `metadata`, `store`), none of which is a generation parameter.
 */
export const IGNORED_FIELDS: ReadonlySet<string> = new Set(["stream", "stream_options", "user", "metadata", "store"])

/** Conversations longer than this are matched exactly even in semantic mode. */
export const MAX_SEMANTIC_MESSAGES = 4

/** Fields that pick the upstream host, region or deployment when no `custom_host` says it. */
const LOCATION_FIELDS = [
  "custom_host",
  "virtual_key",
  "resource_name",
  "deployment_id",
  "api_version",
  "cloud1_region",
  "cloud2_project_id",
  "cloud2_region",
  "cloud3_region",
  "cloud3_resource_name",
  "cloud3_endpoint_name",
  "cloud3_deployment_name"
] as const

/** Fields that give the model tools: such requests are matched exactly. */
const TOOL_FIELDS = ["tools", "functions", "tool_choice", "function_call"] as const

/** JSON with object keys sorted and `undefined` members dropped, as `JSON.stringify` would. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, inner]) => inner !== undefined)
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

export const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex")

/**
 * A short id of what a target calls: provider, host and the fields choosing a region or
 * deployment, hashed, so that no field of the target (a virtual key included) shows in a key.
 */
export const targetId = (target: ProviderTarget.ProviderTarget): string => {
  const location: Record<string, unknown> = { provider: target.provider }
  for (const field of LOCATION_FIELDS) location[field] = target[field]
  return sha256(canonicalJson(location)).slice(0, 16)
}

/** Who shares entries: the workspace, and the namespace the caller named. */
export interface Scope {
  readonly workspace: string
  readonly namespace: string
  readonly target: string
}

export const scopeOf = (request: GatewayRequest.GatewayRequest, target: string): Scope => ({
  workspace: request.context.principal.workspaceId,
  namespace: request.context.headers[NAMESPACE_HEADER] ?? "",
  target
})

const countedBody = (body: GatewayRequest.JsonObject): Record<string, unknown> => {
  const counted: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) if (!IGNORED_FIELDS.has(key)) counted[key] = value
  return counted
}

/**
 * The exact-match key of a request.
 *
 * @example
 * import { CacheKey } from "@switchyard/cache"
 * const key = CacheKey.simple(request, { workspace: "ws", namespace: "", target: "3f…" }) // 64 hex digits
 */
export const simple = (request: GatewayRequest.GatewayRequest, scope: Scope): string =>
  sha256(canonicalJson({ v: 1, kind: "simple", endpoint: request.endpoint, scope, body: countedBody(request.body) }))

/** A request split for semantic matching: the text to embed, and the key of everything else. */
export interface SemanticParts {
  /** Hash of everything but the last user message's text: only entries under it may match. */
  readonly partition: string
  /** The last user message's text. */
  readonly text: string
}

/**
 * Splits a chat request for semantic matching, or `undefined` when it must be matched exactly:
 * not a chat request, more than {@link MAX_SEMANTIC_MESSAGES} messages, tools, a last message
 * that is not the user's, or content that is not text.
 */
export const semantic = (
  request: GatewayRequest.GatewayRequest,
  scope: Scope,
  embedder: string
): SemanticParts | undefined => {
  if (request.endpoint !== "chat.completions") return undefined
  const body = request.body
  if (TOOL_FIELDS.some((field) => body[field] !== undefined)) return undefined
  const messages = body.messages
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_SEMANTIC_MESSAGES) return undefined
  const last: unknown = messages[messages.length - 1]
  if (typeof last !== "object" || last === null || !("role" in last) || last.role !== "user") return undefined
  const text = "content" in last ? textOf(last.content) : undefined
  if (text === undefined || text.trim().length === 0) return undefined
  const rest = countedBody(body)
  rest.messages = [...messages.slice(0, -1), { ...last, content: null }]
  return {
    partition: sha256(
      canonicalJson({ v: 1, kind: "semantic", embedder, endpoint: request.endpoint, scope, body: rest })
    ),
    text
  }
}

/** The text of a message's content: a string, or text parts only. */
const textOf = (content: unknown): string | undefined => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return undefined
  const texts: Array<string> = []
  for (const part of content) {
    if (typeof part !== "object" || part === null || !("type" in part) || part.type !== "text") return undefined
    if (!("text" in part) || typeof part.text !== "string") return undefined
    texts.push(part.text)
  }
  return texts.join("\n")
}
