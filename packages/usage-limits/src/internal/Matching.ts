/**
 * Which policies apply to a request, and under which value key its usage is counted
 * (extensions.md, "Usage-limit policies"): every condition must match (`*` matches any value,
 * an absent one included, so leaving a header out never escapes a budget), and the group-by
 * values, joined as `key:value` pairs, name the counter.
 */

/** What a request is, in the terms of conditions and group-by keys. */
export interface Facts {
  /** The API key's id (never its secret). */
  readonly api_key: string
  readonly workspace_id: string
  readonly virtual_key: string | undefined
  readonly provider: string
  readonly model: string | undefined
  readonly integration: string | undefined
  readonly metadata: Readonly<Record<string, string>>
}

export interface Condition {
  readonly key: string
  readonly value: string
}

export interface GroupKey {
  readonly key: string
}

const METADATA = "metadata."

/** The request's value for a condition or group-by key; undefined when it has none. */
export const valueOf = (facts: Facts, key: string): string | undefined => {
  switch (key) {
    case "api_key":
      return facts.api_key
    case "workspace_id":
      return facts.workspace_id
    case "virtual_key":
      return facts.virtual_key
    case "provider":
      return facts.provider
    case "model":
      return facts.model
    case "integration":
      return facts.integration
    default:
      return key.startsWith(METADATA) ? facts.metadata[key.slice(METADATA.length)] : undefined
  }
}

export const matches = (conditions: ReadonlyArray<Condition>, facts: Facts): boolean =>
  conditions.every((condition) => condition.value === "*" || valueOf(facts, condition.key) === condition.value)

/** `api_key:k-1,model:gpt-4o`: the group-by values in the policy's order; an absent value is empty. */
export const valueKey = (groupBy: ReadonlyArray<GroupKey>, facts: Facts): string =>
  groupBy.map((group) => `${group.key}:${valueOf(facts, group.key) ?? ""}`).join(",")
