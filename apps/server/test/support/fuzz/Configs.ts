/**
 * Gateway configs as values: valid ones (one target, strategy trees, the optional members) and
 * one change to a valid one, with whether the config schema must refuse it. Every target's host
 * is the fake.
 */
import fc from "fast-check"
import type { Case, World } from "./FuzzRequest.ts"
import { isRecord, type Json, type JsonRecord, type Kind, kindOf, type Path, setAt, short } from "./JsonText.ts"
import { many, words } from "./Lists.ts"
import { unknownName, wrongValue } from "./ValueArbitraries.ts"

const CONFIG_FIELDS: Readonly<Record<string, Kind>> = {
  ...Object.fromEntries(
    words(
      "name provider api_key virtual_key custom_host prompt_id resource_name deployment_id api_version " +
        "vendor_organization cloud1_access_key_id cloud1_region cloud2_project_id cloud3_deployment_type Authorization"
    ).map((name) => [name, "string"])
  ),
  ...Object.fromEntries(
    words(
      "forward_headers on_status_codes before_request_hooks after_request_hooks input_guardrails output_guardrails " +
        "deployments targets"
    ).map((name) => [name, "array"])
  ),
  ...Object.fromEntries(
    words("strategy override_params cache retry cb_config cloud2_service_account_json").map((name) => [name, "object"])
  ),
  strict_vendor_compliance: "boolean",
  request_timeout: "number",
  weight: "number"
}

export const leaf = (world: World, index: number): JsonRecord => ({
  name: `t${index}`,
  provider: "openai",
  api_key: "sk-fuzz",
  custom_host: world.fakeUrl
})

const MODES = ["single", "fallback", "loadbalance", "conditional"] as const
type Mode = typeof MODES[number]
export const modes = fc.array(fc.constantFrom(...MODES), { minLength: 1, maxLength: 3 })

/** A strategy tree `levels` strategy nodes deep, `fanout` targets a node while it stays small. */
export const strategyTree = (world: World, levels: number, fanout: number, cycle: ReadonlyArray<Mode>): JsonRecord => {
  let leaves = 0
  const build = (level: number): JsonRecord => {
    if (level === 0) return leaf(world, leaves++)
    const mode = cycle[level % cycle.length] ?? "fallback"
    const [first, ...rest] = many(levels <= 4 ? fanout : 1, () => build(level - 1))
    if (mode !== "conditional" || first === undefined) return { strategy: { mode }, targets: [first ?? {}, ...rest] }
    // conditional names its targets: the first one answers to "t0"
    const strategy = { mode, conditions: [{ query: { "metadata.plan": "pro" }, then: "t0" }], default: "t0" }
    return { strategy, targets: [{ ...first, name: "t0" }, ...rest] }
  }
  // the root names the fake too, so a target a mutation empties still inherits no other host
  return { ...build(levels), custom_host: world.fakeUrl }
}

export const validConfig = (world: World): fc.Arbitrary<JsonRecord> =>
  fc.oneof(
    fc.constant(leaf(world, 0)),
    fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }), modes).map(([levels, fanout, cycle]) =>
      strategyTree(world, levels, fanout, cycle)
    ),
    fc.record({
      request_timeout: fc.integer({ min: 1, max: 1_500 }),
      retry: fc.constant({ attempts: 0 }),
      cache: fc.constantFrom({ mode: "simple" }, { mode: "simple", max_age: 60 }),
      override_params: fc.constantFrom({ temperature: 0.5 }, { max_tokens: 5 }),
      forward_headers: fc.constantFrom(["x-team"], [])
    }, { requiredKeys: [] }).map((extra) => ({ ...leaf(world, 0), ...extra }))
  )

/** Every node of a config tree with its path: [] for the root, ["targets", 0] for its first target, … */
const nodesOf = (config: JsonRecord): ReadonlyArray<{ readonly node: Json; readonly path: Path }> => {
  const nodes: Array<{ readonly node: Json; readonly path: Path }> = []
  const stack: Array<{ readonly node: Json; readonly path: Path }> = [{ node: config, path: [] }]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { node, path } = next
    nodes.push(next)
    if (isRecord(node) && Array.isArray(node.targets)) {
      node.targets.forEach((target: Json, index: number) =>
        stack.push({ node: target, path: [...path, "targets", index] })
      )
    }
  }
  return nodes
}

const pathName = (path: Path) =>
  ["config", ...path.map((step) => (typeof step === "number" ? `[${step}]` : `.${step}`))].join("")

/** One change to a valid config: an unknown member, a member of any type, or a strategy member. */
export const mutatedConfig = (world: World): fc.Arbitrary<Case<JsonRecord>> =>
  fc.tuple(
    validConfig(world),
    fc.nat(),
    fc.oneof(
      fc.tuple(fc.constant<"unknown">("unknown"), unknownName, wrongValue),
      fc.tuple(fc.constant<"member">("member"), fc.constantFrom(...Object.keys(CONFIG_FIELDS)), wrongValue),
      fc.tuple(
        fc.constant<"strategy">("strategy"),
        fc.constantFrom(...words("mode conditions default on_status_codes zz")),
        wrongValue
      )
    )
  ).map(([config, pick, [what, name, generated]]): Case<JsonRecord> => {
    const nodes = nodesOf(config)
    const strategyNodes = nodes.filter(({ node }) => isRecord(node) && "strategy" in node)
    const candidates = what === "strategy" && strategyNodes.length > 0 ? strategyNodes : nodes
    const at = candidates[pick % candidates.length]?.path ?? []
    const path = what === "strategy" ? [...at, "strategy", name] : [...at, name]
    // a custom_host is only ever the fake: any other string would send a request elsewhere
    const value = name === "custom_host" && kindOf(generated) === "string" ? 5 : generated
    const next = setAt(config, path, value)
    const label = `${what === "unknown" ? "unknown member " : ""}${pathName(path)} = ${short(value)}`
    if (!next.applied) return { value: config, label: `${label} (not applied: no such node)`, refuse: undefined }
    const badMode = name === "mode" && !(typeof value === "string" && MODES.some((mode) => mode === value))
    const wrongKind = what === "member" && kindOf(value) !== CONFIG_FIELDS[name] && kindOf(value) !== "null"
    const refuse = what === "unknown" || (what === "strategy" && name === "zz")
      ? `${pathName(path)} is not a member`
      : what === "strategy" && badMode
      ? `${pathName(path)} is not a mode`
      : wrongKind
      ? `${pathName(path)} must be of type ${CONFIG_FIELDS[name]}`
      : undefined
    return { value: next.value, label, refuse }
  })
