/**
 * Fuzz test of the gateway's input handling (issue 10): more than 10,000 generated malformed
 * requests, from a fixed seed, against one real gateway process whose only upstream is a
 * FakeOpenAI. Every answer must come within 2 s, never be a 5xx, and, when it is not a 2xx, be
 * the error envelope; a request the spec says must be refused must not be answered 2xx.
 *
 * Each category runs its requests 16 at a time, then replays its first failures alone (to tell a
 * cause from a bystander of a blocked process) and shrinks them with fast-check. A process that
 * stops answering /health is replaced, at most three times a category, and the suite goes on.
 *
 * Safety: every URL a request carries is the fake's own 127.0.0.1 URL or garbage that parses as
 * no http URL at all; `assertLocalOnly` checks each request before it is sent.
 */
import fc from "fast-check"
import { type ChildProcess, spawn } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "./support/Admin.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

const SEED = 1_010_010
/** The longest any answer may take (extensions.md, "Limits of input": no request can hold the process). */
const ANSWER_WITHIN_MS = 2_000
const CONCURRENCY = 16
/** Failures replayed, shrunk and shown per category, and what replaying may cost. */
const SHOWN_PER_CATEGORY = 4
const MAX_REPLAYS = 10
const SHRINK_BUDGET_MS = 6_000
const REPLAY_BUDGET_MS = 30_000
const REPLAY_RESTARTS = 2
/** A category that stops the process this often is cut short, so one cause cannot stall the suite. */
const RESTARTS_PER_CATEGORY = 3
/** The management routes read at most 1 MiB (ManagementRoute.ts). */
const MANAGEMENT_MAX_BODY = 1024 * 1024
/** extensions.md, "Limits of input". */
const MAX_JSON_DEPTH = 64
const MAX_STRATEGY_DEPTH = 10

// ---------------------------------------------------------------------------------------------
// Requests and JSON values
// ---------------------------------------------------------------------------------------------

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type JsonRecord = { readonly [key: string]: Json }
type Path = ReadonlyArray<string | number>

interface FuzzRequest {
  /** What was generated, in words: the first thing to read in a failure. */
  readonly label: string
  readonly method: "POST" | "PUT"
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** Why the spec says the gateway must refuse it (4xx); undefined when a 2xx is fine too. */
  readonly refuse: string | undefined
}

/** Something generated, with what it is and whether the spec refuses it. */
interface Case<A> {
  readonly value: A
  readonly label: string
  readonly refuse: string | undefined
}

const words = (text: string): ReadonlyArray<string> => text.split(" ")

/** JSON text written into the output as is: JSON.stringify cannot write 1e400, -0 or cheap big arrays. */
const raw = (text: string): string => `\u0000raw:${text}`
const RAW = /"\\u0000raw:([^"\\]*)"/g
const toText = (value: Json): string => JSON.stringify(value).replace(RAW, "$1")
const rawNumber = (value: string): number | undefined =>
  value.startsWith("\u0000raw:") ? Number(value.slice(5)) : undefined
const short = (value: Json): string => {
  const text = toText(value)
  return text.length > 60 ? `${text.slice(0, 57)}…` : text
}

type Kind = "null" | "boolean" | "number" | "string" | "array" | "object"
const kindOf = (value: Json): Kind => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  if (typeof value === "string") return rawNumber(value) === undefined ? "string" : "number"
  if (typeof value === "object") return "object"
  return typeof value === "boolean" ? "boolean" : "number"
}
const isRecord = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)
const isJson = (value: unknown): value is Json =>
  value === null || ["boolean", "number", "string"].includes(typeof value) || Array.isArray(value) || isRecord(value)

/** How deep the text has nested at its end: a value written there starts one level below. */
const openDepth = (text: string): number => {
  let depth = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const char = text[index]
    if (inString) {
      if (char === "\\") index++
      else if (char === "\"") inString = false
    } else if (char === "\"") inString = true
    else if (char === "{" || char === "[") depth++
    else if (char === "}" || char === "]") depth--
  }
  return depth
}

type Nesting = "object" | "array" | "mixed"
/** A value nested `levels` deep, as text (JSON.stringify would recurse once a level). */
const nestedText = (levels: number, nesting: Nesting): string => {
  if (nesting === "array") return "[".repeat(levels) + "1" + "]".repeat(levels)
  if (nesting === "object") return "{\"p\":".repeat(levels - 1) + "{\"p\":1" + "}".repeat(levels)
  const pairs = Math.floor(levels / 2)
  return "{\"p\":[".repeat(pairs) + (levels % 2 === 1 ? "[1]" : "1") + "]}".repeat(pairs)
}

/** A copy of `base` with `value` at `path` (undefined deletes); not applied when the parent is missing. */
const setAt = (base: JsonRecord, path: Path, value: Json | undefined) => {
  const copy: Record<string, unknown> = structuredClone(base)
  let parent: unknown = copy
  for (const step of path.slice(0, -1)) {
    parent = isRecord(parent) || Array.isArray(parent) ? Reflect.get(parent, step) : undefined
  }
  const last = path.at(-1)
  const target = isRecord(parent) || Array.isArray(parent) ? parent : undefined
  const applied = last !== undefined && target !== undefined
  if (applied && value === undefined) Reflect.deleteProperty(target, last)
  // defined, not assigned: assigning "__proto__" would set the prototype, not a member
  else if (applied) Object.defineProperty(target, last, { value, enumerable: true, writable: true, configurable: true })
  const record: Record<string, Json> = {}
  for (const [key, member] of Object.entries(copy)) {
    if (isJson(member)) Object.defineProperty(record, key, { value: member, enumerable: true, writable: true })
  }
  return { applied, value: record }
}

// ---------------------------------------------------------------------------------------------
// Value arbitraries
// ---------------------------------------------------------------------------------------------

const hugeNumber = fc.constantFrom<Json>(
  ...words("1e400 -1e400 1e308 123456789012345678901234567890 -0 1e-400 0.1e1 9007199254740993").map(raw),
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  2 ** 31,
  -(2 ** 31) - 1
)
const nanLike = fc.constantFrom(...words("NaN Infinity -Infinity 1e999 0x10 null true 1_000 ١٢٣ +5 .5 --1"), " 1", "")
const oddString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 24 }) },
  { weight: 2, arbitrary: nanLike },
  {
    weight: 1,
    arbitrary: fc.constantFrom("__proto__", "constructor", "toString", "😀😀", "\u0000", "\ud800", "\u202e")
  }
)
const scalar: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  hugeNumber,
  oddString
)
const wrongValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 5, arbitrary: scalar },
  { weight: 1, arbitrary: fc.constantFrom<Json>([], {}, [null], [[]], [{}]) },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(oddString, scalar, { maxKeys: 4 }) }
)
/** A member name no schema knows. */
const unknownName = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "x", "", "Model", "model ", "targets2", "strategy.mode"),
  fc.string({ minLength: 1, maxLength: 12 }).map((name) => `zz_${name}`)
)
/** Depths that linger around the limit and reach far past it. */
const depth = (max: number) =>
  fc.oneof(
    fc.integer({ min: 1, max: 40 }),
    fc.integer({ min: MAX_JSON_DEPTH - 6, max: MAX_JSON_DEPTH + 6 }),
    fc.integer({ min: MAX_JSON_DEPTH + 7, max })
  )
const nesting = fc.constantFrom<Nesting>("object", "array", "mixed")
const tooDeep = (total: number) => total > MAX_JSON_DEPTH ? `nested ${total} levels, more than 64` : undefined

/** Why text must be refused where a JSON object is expected; undefined for an object (or a BOM case). */
const refusalOfText = (text: string, what: string): string | undefined => {
  if (text.startsWith("\ufeff")) return undefined
  try {
    return isRecord(JSON.parse(text)) ? undefined : `${what} is JSON but not an object`
  } catch {
    return `${what} is not valid JSON`
  }
}

// ---------------------------------------------------------------------------------------------
// What the gateway talks to, and the headers every request starts from
// ---------------------------------------------------------------------------------------------

interface World {
  /** The fake's base URL, `http://127.0.0.1:PORT/v1`: the only upstream. */
  readonly fakeUrl: string
  /** A stored config's id, for `PUT /v1/configs/:id`. */
  readonly configId: string
}

const JSON_HEADERS = { "content-type": "application/json", "x-gateway-api-key": GatewayProcess.ADMIN_KEY }
const viaFake = (world: World): Readonly<Record<string, string>> => ({
  ...JSON_HEADERS,
  "x-gateway-provider": "openai",
  "x-gateway-custom-host": world.fakeUrl,
  authorization: "Bearer sk-fuzz"
})

/** A value fetch accepts as a header: printable ASCII (it throws on CR, LF, NUL and code points over 255). */
const headerSafe = (value: string): string => value.replace(/[^\x20-\x7e]/g, "?")

// ---------------------------------------------------------------------------------------------
// Bodies of the inference endpoints: 1 to 3 changes to a valid body
// ---------------------------------------------------------------------------------------------

interface Mutation {
  readonly label: string
  readonly path: Path
  /** undefined deletes the member. */
  readonly value: Json | undefined
  readonly refuse: string | undefined
}
const mutation = (label: string, path: Path, value: Json | undefined, refuse?: string): Mutation => ({
  label,
  path,
  value,
  refuse
})

/** A rule the gateway must enforce (BadInput.test.ts), as a check and the words for it. */
type Rule = readonly [(value: Json) => boolean, string]

const inRange = (name: string, min: number, max: number, integer = false): Rule => [
  (value) => {
    const number = typeof value === "number" ? value : typeof value === "string" ? rawNumber(value) : undefined
    return value === null ||
      (number !== undefined && Number.isFinite(number) && number >= min && number <= max &&
        (!integer || Number.isInteger(number)))
  },
  `${name} between ${min} and ${max}`
]
const isString: Rule = [(value) => kindOf(value) === "string", "must be a string"]

interface BodySpec {
  readonly name: string
  readonly path: string
  readonly base: JsonRecord
  readonly required: ReadonlyArray<string>
  /** Known members; those with a rule must be checked, the others go to the provider as they are. */
  readonly fields: Readonly<Record<string, Rule | undefined>>
  /** Changes only this endpoint knows (roles, big arrays, …). */
  readonly specials: ReadonlyArray<fc.Arbitrary<Mutation>>
}

const unchecked = (names: string) => Object.fromEntries(words(names).map((name) => [name, undefined]))
const ROLES = words("system developer user assistant tool function")
const many = <A>(count: number, item: (index: number) => A): Array<A> =>
  Array.from({ length: count }, (_, i) => item(i))

const chatSpec: BodySpec = {
  name: "chat",
  path: "/v1/chat/completions",
  base: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
  required: ["model", "messages"],
  fields: {
    model: isString,
    messages: [(value) => Array.isArray(value) && value.length > 0, "messages must be a non-empty array"],
    temperature: inRange("temperature", 0, 2),
    top_p: inRange("top_p", 0, 1),
    n: inRange("n", 1, 128, true),
    presence_penalty: inRange("presence_penalty", -2, 2),
    frequency_penalty: inRange("frequency_penalty", -2, 2),
    stream: [(value) => value === null || typeof value === "boolean", "stream must be a boolean"],
    ...unchecked(
      "stream_options stop max_tokens max_completion_tokens logit_bias logprobs top_logprobs user tools tool_choice " +
        "functions function_call response_format seed metadata parallel_tool_calls modalities store reasoning_effort " +
        "service_tier prediction audio"
    )
  },
  specials: [
    fc.oneof(fc.constantFrom("robot", "", "SYSTEM", "root", "functions", "User"), fc.string({ maxLength: 10 })).map(
      (role) => {
        const refuse = ROLES.includes(role) ? undefined : `"${role}" is not a role`
        return mutation(`messages[0].role = ${JSON.stringify(role)}`, ["messages", 0, "role"], role, refuse)
      }
    ),
    wrongValue.map((value) => mutation(`messages[0].content = ${short(value)}`, ["messages", 0, "content"], value)),
    scalar.map((value) => mutation(`messages[0] = ${short(value)}`, ["messages", 0], value, "a message is an object")),
    fc.integer({ min: 1_000, max: 5_000 }).map((count) =>
      mutation(`${count} messages`, ["messages"], many(count, (i) => ({ role: "user", content: `m${i}` })))
    ),
    fc.integer({ min: 100, max: 1_000 }).map((count) =>
      mutation(
        `${count} tools`,
        ["tools"],
        many(count, (i) => ({ type: "function", function: { name: `f${i}` } })),
        count > 128 ? "at most 128 tools" : undefined
      )
    ),
    fc.integer({ min: 1, max: 2_000 }).map((count) =>
      mutation(`${count} stop sequences`, ["stop"], many(count, (i) => `s${i}`), count > 4 ? "at most 4" : undefined)
    ),
    fc.integer({ min: 300, max: 5_000 }).map((count) =>
      mutation(`logit_bias of ${count} keys`, ["logit_bias"], Object.fromEntries(many(count, (i) => [String(i), 1])))
    ),
    fc.integer({ min: 100_000, max: 400_000 }).map((length) =>
      mutation(`a message of ${length} characters`, ["messages", 0, "content"], "x".repeat(length))
    ),
    fc.array(
      fc.record({
        type: fc.oneof(fc.constantFrom(...words("text image_url input_audio file")), oddString),
        text: wrongValue
      }),
      { maxLength: 5 }
    ).map((parts) => mutation(`content parts ${short(parts)}`, ["messages", 0, "content"], parts))
  ]
}

const completionSpec: BodySpec = {
  name: "completions",
  path: "/v1/completions",
  base: { model: "gpt-3.5-turbo-instruct", prompt: "hello" },
  required: ["model"],
  fields: {
    model: isString,
    ...unchecked(
      "prompt suffix max_tokens temperature top_p n stream logprobs echo stop presence_penalty frequency_penalty " +
        "best_of logit_bias user seed"
    )
  },
  specials: [
    fc.integer({ min: 1_000, max: 20_000 }).map((count) =>
      mutation(`a prompt of ${count} token ids`, ["prompt"], many(count, (i) => i))
    ),
    fc.integer({ min: 100, max: 5_000 }).map((count) =>
      mutation(`${count} prompts`, ["prompt"], many(count, (i) => `p${i}`))
    ),
    fc.array(fc.array(wrongValue, { maxLength: 4 }), { maxLength: 4 }).map((value) =>
      mutation(`prompt = ${short(value)}`, ["prompt"], value)
    )
  ]
}

const embeddingSpec: BodySpec = {
  name: "embeddings",
  path: "/v1/embeddings",
  base: { model: "text-embedding-3-small", input: "hello" },
  required: ["model", "input"],
  fields: { model: isString, ...unchecked("input encoding_format user") },
  specials: [
    fc.integer({ min: 100, max: 5_000 }).map((count) =>
      mutation(`${count} inputs`, ["input"], many(count, (i) => `i${i}`))
    ),
    fc.integer({ min: 1_000, max: 20_000 }).map((count) =>
      mutation(`an input of ${count} token ids`, ["input"], many(count, (i) => i))
    ),
    // no large whole number: the fake would write that many values for every input
    fc.oneof(
      fc.constantFrom<Json>(raw("1e400"), raw("-1e400"), raw("1e-400"), -1, 0, 1.5, -(2 ** 31)),
      nanLike,
      fc.integer({ min: 1, max: 16 })
    ).map((value) => mutation(`dimensions = ${short(value)}`, ["dimensions"], value))
  ]
}

const fieldMutation = (spec: BodySpec): fc.Arbitrary<Mutation> =>
  fc.oneof(
    // a known member given a value of any type
    {
      weight: 8,
      arbitrary: fc.tuple(fc.constantFrom(...Object.keys(spec.fields)), wrongValue).map(([name, value]) => {
        const rule = spec.fields[name]
        return mutation(
          `${name} = ${short(value)}`,
          [name],
          value,
          rule !== undefined && !rule[0](value) ? rule[1] : undefined
        )
      })
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...spec.required).map((name) =>
        mutation(`no ${name}`, [name], undefined, `${name} is required`)
      )
    },
    // a member no one knows: providers take extra parameters, so a 2xx is fine
    {
      weight: 2,
      arbitrary: fc.tuple(unknownName, wrongValue).map(([name, value]) =>
        mutation(`unknown member ${JSON.stringify(name)} = ${short(value)}`, [name], value)
      )
    },
    { weight: 4, arbitrary: fc.oneof(...spec.specials) }
  )

const mutatedBody = (spec: BodySpec, mutations: ReadonlyArray<Mutation>) => {
  let body: JsonRecord = spec.base
  const applied: Array<Mutation> = []
  for (const change of mutations) {
    const next = setAt(body, change.path, change.value)
    if (!next.applied) continue
    // a later change to a member replaces what an earlier one said about it or inside it
    const prefix = change.path.join(".")
    for (let index = applied.length - 1; index >= 0; index--) {
      if (applied[index]?.path.join(".").startsWith(prefix)) applied.splice(index, 1)
    }
    body = next.value
    applied.push(change)
  }
  return { body, applied }
}

const inferenceBody = (world: World, spec: BodySpec): fc.Arbitrary<FuzzRequest> =>
  fc.tuple(fc.array(fieldMutation(spec), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([mutations, stream]) => {
    const { body, applied } = mutatedBody(spec, mutations)
    const streamed = stream && spec.name !== "embeddings" && !applied.some((m) => m.path[0] === "stream")
    return {
      label: `${spec.name}: ${applied.map((m) => m.label).join("; ")}${streamed ? " (stream)" : ""}`,
      method: "POST",
      path: spec.path,
      headers: viaFake(world),
      body: toText(streamed ? { ...body, stream: true } : body),
      refuse: applied.find((m) => m.refuse !== undefined)?.refuse
    }
  })

const validChatText = toText(chatSpec.base)
const inferencePath = fc.constantFrom(chatSpec.path, completionSpec.path, embeddingSpec.path)
const validBodyOf = (path: string): string =>
  toText([chatSpec, completionSpec, embeddingSpec].find((spec) => spec.path === path)?.base ?? chatSpec.base)

// ---------------------------------------------------------------------------------------------
// Deep bodies, raw bodies
// ---------------------------------------------------------------------------------------------

const CHAT_START = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
/** Where a deep value goes: the body text before and after it. */
const deepSlots: ReadonlyArray<
  { readonly name: string; readonly path: string; readonly around: readonly [string, string] }
> = [
  {
    name: "tools[0].function.parameters",
    path: chatSpec.path,
    around: [`${CHAT_START}"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":`, "}}]}"]
  },
  {
    name: "response_format.json_schema.schema",
    path: chatSpec.path,
    around: [`${CHAT_START}"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":`, "}}}"]
  },
  { name: "metadata", path: chatSpec.path, around: [`${CHAT_START}"hi"}],"metadata":`, "}"] },
  { name: "messages[0].content", path: chatSpec.path, around: [CHAT_START, "}]}"] },
  { name: "completions prompt", path: completionSpec.path, around: ["{\"model\":\"m\",\"prompt\":", "}"] },
  { name: "embeddings input", path: embeddingSpec.path, around: ["{\"model\":\"m\",\"input\":", "}"] }
]

const deepBody = (world: World): fc.Arbitrary<FuzzRequest> =>
  fc.tuple(fc.constantFrom(...deepSlots), depth(5_000), nesting).map(([slot, levels, shape]) => {
    const total = openDepth(slot.around[0]) + levels
    return {
      label: `${slot.name} nested ${levels} levels (${shape}); the body is ${total} deep`,
      method: "POST",
      path: slot.path,
      headers: viaFake(world),
      body: slot.around[0] + nestedText(levels, shape) + slot.around[1],
      refuse: tooDeep(total)
    }
  })

const rawText = fc.oneof(
  { weight: 3, arbitrary: fc.nat({ max: validChatText.length - 1 }).map((cut) => validChatText.slice(0, cut)) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 60 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ...words("[1] 5 null \"x\" true [] 1e400 { } nul {\"model\":} {\"model\":\"m\",} {'model':'m'} {\"model\":NaN}"),
      ...words("{\"model\":Infinity} {\"model\":\"m\"/*c*/} {\"a\":1}{\"b\":2} \"\\ud800\""),
      "",
      " ",
      `[${validChatText}]`,
      `${validChatText}x`,
      `{"model":"m","model":5,"messages":[{"role":"user","content":"hi"}]}`
    )
  },
  { weight: 1, arbitrary: fc.constantFrom(`\ufeff${validChatText}`, `${" ".repeat(500_000)}${validChatText}`) }
)
const contentTypes = fc.constantFrom(
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=utf-16",
  ""
)

const rawBody = (world: World): fc.Arbitrary<FuzzRequest> =>
  fc.tuple(inferencePath, rawText, contentTypes).map(([path, text, contentType]) => {
    const { "content-type": _json, ...headers } = viaFake(world)
    return {
      label: `${path} with the text ${JSON.stringify(text.slice(0, 60))} as ${contentType || "no content type"}`,
      method: "POST",
      path,
      headers: contentType === "" ? headers : { ...headers, "content-type": contentType },
      body: text,
      refuse: refusalOfText(text, "the body")
    }
  })

// ---------------------------------------------------------------------------------------------
// Configs (the x-gateway-config header and POST /v1/configs)
// ---------------------------------------------------------------------------------------------

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

const leaf = (world: World, index: number): JsonRecord => ({
  name: `t${index}`,
  provider: "openai",
  api_key: "sk-fuzz",
  custom_host: world.fakeUrl
})

const MODES = ["single", "fallback", "loadbalance", "conditional"] as const
type Mode = typeof MODES[number]
const modes = fc.array(fc.constantFrom(...MODES), { minLength: 1, maxLength: 3 })

/** A strategy tree `levels` strategy nodes deep, `fanout` targets a node while it stays small. */
const strategyTree = (world: World, levels: number, fanout: number, cycle: ReadonlyArray<Mode>): JsonRecord => {
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

const validConfig = (world: World): fc.Arbitrary<JsonRecord> =>
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
const mutatedConfig = (world: World): fc.Arbitrary<Case<JsonRecord>> =>
  fc.tuple(
    validConfig(world),
    fc.nat(),
    fc.oneof(
      fc.tuple(fc.constant("unknown" as const), unknownName, wrongValue),
      fc.tuple(fc.constant("member" as const), fc.constantFrom(...Object.keys(CONFIG_FIELDS)), wrongValue),
      fc.tuple(
        fc.constant("strategy" as const),
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

const NOT_OBJECT = "x-gateway-config is neither a JSON object nor a stored config id (extensions.md: 400)"
const NOT_OBJECTS = fc.constantFrom(...words("[1] 5 null \"x\" true [] [{\"provider\":\"openai\"}] 1e400 \"pc-\" -1"))

const configHeaderText = (world: World): fc.Arbitrary<Case<string>> =>
  fc.oneof(
    { weight: 5, arbitrary: mutatedConfig(world).map((c) => ({ ...c, value: toText(c.value) })) },
    {
      weight: 1,
      arbitrary: validConfig(world).map((config) => ({
        value: toText(config),
        label: "a valid config",
        refuse: undefined
      }))
    },
    {
      weight: 2,
      arbitrary: NOT_OBJECTS.map((text) => ({ value: text, label: `the config ${text}`, refuse: NOT_OBJECT }))
    },
    {
      weight: 2,
      arbitrary: fc.tuple(validConfig(world), fc.nat(), fc.string({ maxLength: 8 })).map(([config, cut, tail]) => {
        const text = toText(config)
        const broken = text.slice(0, cut % text.length) + tail
        return { value: broken, label: `the config cut to ${JSON.stringify(broken.slice(0, 60))}`, refuse: undefined }
      })
    },
    {
      weight: 1,
      arbitrary: fc.string({ unit: "binary", maxLength: 40 }).map((text) => ({
        value: text,
        label: `the config ${JSON.stringify(text)}`,
        refuse: undefined
      }))
    }
  ).map((c) => {
    const value = headerSafe(c.value)
    const trimmed = value.trim()
    // fetch trims header values, and an empty one is as good as none
    if (trimmed === "") return { value, label: c.label, refuse: undefined }
    const refuse = c.refuse ?? (trimmed.startsWith("pc-") ? undefined : refusalOfText(trimmed, "x-gateway-config"))
    return { value, label: c.label, refuse }
  })

const configHeader = (world: World): fc.Arbitrary<FuzzRequest> =>
  fc.tuple(configHeaderText(world), fc.boolean(), inferencePath).map(([c, withProvider, path]) => ({
    label: `${c.label}${withProvider ? " (with x-gateway-provider as well)" : ""}`,
    method: "POST",
    path,
    // with a provider header too, a config that is silently ignored shows as a 2xx
    headers: { ...(withProvider ? viaFake(world) : JSON_HEADERS), "x-gateway-config": c.value },
    body: validBodyOf(path),
    refuse: c.refuse
  }))

/** A conditional strategy whose query is a regular expression, most of them ones that backtrack badly. */
const configRegex = (world: World): fc.Arbitrary<FuzzRequest> =>
  fc.tuple(
    fc.constantFrom(...words("(a+)+$ (a|a)*b ^(a|aa)+$ (.*a){20} ([a-z]+)*!x ^a+!$ pro")),
    fc.integer({ min: 10, max: 40 })
  ).map(([pattern, length]) => ({
    label: `conditional query {$regex: ${pattern}} over metadata of ${length} a's and a !`,
    method: "POST",
    path: chatSpec.path,
    headers: {
      ...JSON_HEADERS,
      "x-gateway-metadata": JSON.stringify({ plan: `${"a".repeat(length)}!` }),
      "x-gateway-config": toText({
        strategy: {
          mode: "conditional",
          conditions: [{ query: { "metadata.plan": { $regex: pattern } }, then: "t0" }],
          default: "t0"
        },
        targets: [leaf(world, 0)]
      })
    },
    body: validChatText,
    refuse: undefined
  }))

/** Strategy trees up to 30 deep, and configs whose JSON nests up to 5,000 deep. */
const deepConfig = (world: World): fc.Arbitrary<FuzzRequest> =>
  fc.oneof(
    fc.tuple(
      fc.oneof(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 8, max: 13 })),
      fc.integer({ min: 1, max: 2 }),
      modes
    )
      .map(([levels, fanout, cycle]): Case<string> => ({
        value: toText(strategyTree(world, levels, fanout, cycle)),
        label: `a strategy tree ${levels} deep (${cycle.join("/")}, fanout ${levels <= 4 ? fanout : 1})`,
        refuse: levels > MAX_STRATEGY_DEPTH ? `${levels} strategy nodes on one path, more than 10` : undefined
      })),
    fc.tuple(fc.constantFrom("override_params", "query"), depth(5_000)).map(([where, levels]): Case<string> => {
      const [before, after] = where === "override_params"
        ? [
          `{"provider":"openai","api_key":"sk","custom_host":${JSON.stringify(world.fakeUrl)},"override_params":{"x":`,
          "}}"
        ]
        : [
          "{\"strategy\":{\"mode\":\"conditional\",\"conditions\":[{\"query\":{\"metadata.plan\":",
          `},"then":"t0"}],"default":"t0"},"targets":[${toText(leaf(world, 0))}]}`
        ]
      const total = openDepth(before) + levels
      // arrays, two bytes a level, keep the header under node's 16 KiB limit
      return {
        value: before + nestedText(levels, "array") + after,
        label: `a config whose ${where} nests ${levels} levels; the config is ${total} deep`,
        refuse: tooDeep(total)
      }
    })
  ).map((c) => ({
    label: c.label,
    method: "POST",
    path: chatSpec.path,
    headers: { ...JSON_HEADERS, "x-gateway-config": c.value },
    body: validChatText,
    refuse: c.refuse
  }))

// ---------------------------------------------------------------------------------------------
// Other headers
// ---------------------------------------------------------------------------------------------

interface HeaderCase extends Case<string> {
  readonly name: string
  /** Without the provider headers: for a header that selects the provider itself. */
  readonly alone?: boolean
}
const header = (name: string, text: string, refuse: (value: string) => string | undefined): HeaderCase => {
  const value = headerSafe(text)
  // fetch trims header values, and an empty one is as good as none
  return { name, value, label: "", refuse: value.trim() === "" ? undefined : refuse(value.trim()) }
}

const metadataRefusal = (text: string): string | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return "x-gateway-metadata is not JSON"
  }
  if (!isRecord(parsed)) return "x-gateway-metadata is not a JSON object"
  const values = Object.values(parsed)
  if (values.length > 16) return "x-gateway-metadata has more than 16 keys"
  return values.every((value) => typeof value === "string") ? undefined : "x-gateway-metadata values must be strings"
}

const metadataHeader = fc.oneof(
  fc.dictionary(oddString, scalar, { maxKeys: 20 }).map(toText),
  fc.dictionary(fc.string({ maxLength: 80 }), fc.string({ maxLength: 600 }), { maxKeys: 20 }).map(toText),
  wrongValue.map(toText),
  fc.string({ unit: "binary", maxLength: 40 }),
  depth(5_000).map((levels) => `{"plan":${nestedText(levels, "array")}}`)
).map((text) => header("x-gateway-metadata", text, metadataRefusal))

const timeoutHeader = fc.oneof(
  nanLike,
  fc.integer().map(String),
  fc.double().map(String),
  fc.string({ maxLength: 10 }),
  fc.constantFrom(...words("0 -1 1.5 1e3 99999999999999999999 1e400 2147483648"))
).map((text) =>
  header("x-gateway-request-timeout", text, (value) => {
    const ms = Number(value)
    return Number.isInteger(ms) && ms >= 1
      ? undefined
      : "x-gateway-request-timeout must be a whole number of milliseconds"
  })
)

const PROVIDERS = words(
  "openai anthropic azure-openai azure-ai groq mistral-ai together-ai deepseek fireworks-ai openrouter ollama bedrock " +
    "vertex-ai google"
)
const providerHeader = fc.oneof(
  fc.constantFrom(...words("nonesuch OPENAI ../openai openai/ @ @nope-zz @@ openai,openai"), "open ai"),
  fc.string({ maxLength: 16 })
).map((text) =>
  header("x-gateway-provider", text, (value) => PROVIDERS.includes(value) ? undefined : `"${value}" is no provider`)
)

/** Garbage that parses as no http URL, or the fake itself with odd paths: never a host elsewhere. */
const customHostHeader = (world: World) =>
  fc.oneof(
    fc.constantFrom(
      ...words(
        "ftp://x http:// https:// :// http//127.0.0.1 javascript:alert(1) file:///etc/passwd data:text/plain,hi"
      ),
      ...words("http://127.0.0.1:99999 http://127.0.0.1:-1 http://[::1 127.0.0.1"),
      "not a url",
      "x".repeat(3000)
    ).map((text) => header("x-gateway-custom-host", text, () => "custom_host must be an http or https URL")),
    fc.constantFrom(...words("?x=1 #f / // /../.. /%2e%2e/ /v9")).map((suffix) =>
      header("x-gateway-custom-host", `${world.fakeUrl}${suffix}`, () => undefined)
    )
  )

const otherHeader = fc.oneof(
  fc.oneof(nanLike, fc.constantFrom(...words("true false TRUE 1 yes"))).map((text) =>
    header(
      "x-gateway-strict-vendor-compliance",
      text,
      (value) => (value === "true" || value === "false" ? undefined : "must be true or false")
    )
  ),
  fc.tuple(
    fc.constantFrom(
      ...words(
        "x-gateway-forward-headers x-gateway-trace-id x-gateway-span-id x-gateway-parent-span-id x-gateway-span-name authorization"
      )
    ),
    fc.oneof(
      fc.string({ unit: "binary", maxLength: 60 }),
      fc.integer({ min: 1_000, max: 8_000 }).map((n) => "t".repeat(n))
    )
  ).map(([name, text]) => header(name, text, () => undefined)),
  fc.string({ maxLength: 40 }).map((text): HeaderCase => ({
    ...header("x-gateway-virtual-key", text, () => "no such virtual key"),
    alone: true
  })),
  fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom(...words("a.b.c eyJhbGciOiJub25lIn0.e30. eyJ.eyJ.sig sy-")))
    .map((
      text
    ) =>
      header("x-gateway-api-key", text, (value) => (value === GatewayProcess.ADMIN_KEY ? undefined : "not a valid key"))
    ),
  // node's parser refuses heads over 16 KiB itself (431): that answer is the gateway's too
  fc.integer({ min: 17_000, max: 40_000 }).map((n) =>
    header("x-gateway-span-name", "s".repeat(n), () => "a head over 16 KiB")
  )
)

const headers = (world: World): fc.Arbitrary<FuzzRequest> =>
  fc.tuple(
    fc.oneof(
      { weight: 3, arbitrary: metadataHeader },
      { weight: 2, arbitrary: timeoutHeader },
      { weight: 2, arbitrary: providerHeader },
      { weight: 2, arbitrary: customHostHeader(world) },
      { weight: 4, arbitrary: otherHeader }
    ),
    inferencePath
  ).map(([c, path]) => {
    const shown = c.value.length > 80 ? `${c.value.slice(0, 77)}… (${c.value.length} chars)` : c.value
    return {
      label: `${c.name}: ${JSON.stringify(shown)}`,
      method: "POST",
      path,
      headers: { ...(c.alone === true ? JSON_HEADERS : viaFake(world)), [c.name]: c.value },
      body: validBodyOf(path),
      // an empty virtual key selects nothing, and then nothing else does either
      refuse: c.refuse ?? (c.alone === true ? "no provider selected" : undefined)
    }
  })

// ---------------------------------------------------------------------------------------------
// Management routes
// ---------------------------------------------------------------------------------------------

interface ManagementSpec {
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
const managementSpecs: ReadonlyArray<ManagementSpec> = [
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
  }
]

const managementBody = (world: World, spec: ManagementSpec): fc.Arbitrary<Case<string>> => {
  const base = spec.base(world)
  const changed = (body: JsonRecord, path: Path, value: Json | undefined) => toText(setAt(body, path, value).value)
  return fc.oneof(
    { weight: 1, arbitrary: base.map((body) => ({ value: toText(body), label: "a valid body", refuse: undefined })) },
    {
      weight: 6,
      arbitrary: fc.tuple(base, fc.constantFrom(...Object.keys(spec.fields)), wrongValue).map(
        ([body, name, generated]) => {
          // a slug stays one no request names (a refused one), a host stays the fake (or no string at all)
          const value = kindOf(generated) !== "string"
            ? generated
            : name === "slug"
            ? `!${generated}`
            : name === "custom_host"
            ? null
            : generated
          const wrong = name === "slug" ||
            (kindOf(value) !== spec.fields[name] && !(value === null && !spec.required.includes(name)))
          return {
            value: changed(body, [name], value),
            label: `${name} = ${short(value)}`,
            refuse: wrong ? `${name} must be a valid ${spec.fields[name]}` : undefined
          }
        }
      )
    },
    {
      weight: 2,
      arbitrary: fc.tuple(base, unknownName, wrongValue).map(([body, name, value]) => ({
        value: changed(body, [name], value),
        label: `unknown member ${JSON.stringify(name)}`,
        refuse: `${name} is not a member (the bodies are closed)`
      }))
    },
    {
      weight: 1,
      arbitrary: fc.tuple(base, fc.constantFrom(...spec.required, "name")).map(([body, name]) => ({
        value: changed(body, [name], undefined),
        label: `no ${name}`,
        refuse: spec.required.includes(name) ? `${name} is required` : undefined
      }))
    },
    {
      weight: 1,
      arbitrary: fc.tuple(base, depth(5_000), nesting).map(([body, levels, shape]) => {
        // the nested value is the last "name" member: the one the schema reads
        const before = `${toText(body).slice(0, -1)},"name":`
        const total = openDepth(before) + levels
        return {
          value: `${before}${nestedText(levels, shape)}}`,
          label: `name nested ${levels} levels (${shape}); the body is ${total} deep`,
          refuse: `name must be a string; ${tooDeep(total) ?? ""}`
        }
      })
    },
    {
      weight: 1,
      arbitrary: fc.tuple(base, fc.integer({ min: 1_000, max: 600_000 })).map(([body, count]) => {
        const name = Object.keys(spec.fields).find((field) => spec.fields[field] === "array") ?? "zz"
        // written as text, two bytes an item (past 1 MiB from about 525,000): cheap to generate
        const value = changed(body, [name], raw(`[${"1,".repeat(count - 1)}1]`))
        return {
          value,
          label: `${name} of ${count} numbers (${value.length} bytes)`,
          refuse: `${name} holds no numbers`
        }
      })
    },
    {
      weight: 2,
      arbitrary: rawText.map((text) => ({
        value: text,
        label: `the text ${JSON.stringify(text.slice(0, 60))}`,
        refuse: refusalOfText(text, "the body")
      }))
    }
  ).map((c) => (c.value.length > MANAGEMENT_MAX_BODY ? { ...c, refuse: c.refuse ?? "larger than 1 MiB" } : c))
}

const management = (world: World): fc.Arbitrary<FuzzRequest> =>
  fc.oneof(
    ...managementSpecs.map((spec) =>
      managementBody(world, spec).map((c): FuzzRequest => ({
        label: `${spec.method} ${spec.name}: ${c.label}`,
        method: spec.method,
        path: spec.path(world),
        headers: JSON_HEADERS,
        body: c.value,
        refuse: c.refuse
      }))
    ),
    mutatedConfig(world).map((c): FuzzRequest => ({
      label: `POST configs with ${c.label}`,
      method: "POST",
      path: "/v1/configs",
      headers: JSON_HEADERS,
      body: toText({ name: "fuzz", config: c.value }),
      refuse: c.refuse
    }))
  )

// ---------------------------------------------------------------------------------------------
// Safety: nothing but 127.0.0.1
// ---------------------------------------------------------------------------------------------

const URL_START = /https?:/gi
/** Headers the gateway parses as JSON: only the strings inside them can be used as URLs. */
const JSON_VALUED = new Set(["x-gateway-config", "x-gateway-metadata"])

/** Every string in JSON text, keys included; none when it does not parse (then the gateway uses none). */
const jsonStrings = (text: string): ReadonlyArray<string> => {
  const strings: Array<string> = []
  const stack: Array<unknown> = []
  try {
    stack.push(JSON.parse(text.replace(/^\ufeff/, "")))
  } catch {
    return strings
  }
  while (stack.length > 0) {
    const value = stack.pop()
    if (typeof value === "string") strings.push(value)
    else if (Array.isArray(value)) {
      // numbers hold no URL: long arrays of them are skipped cheaply
      for (const item of value) if (typeof item !== "number") stack.push(item)
    } else if (isRecord(value)) {
      for (const [key, member] of Object.entries(value)) stack.push(key, member)
    }
  }
  return strings
}

/** Throws when any string the gateway could use would parse as a URL to a host other than 127.0.0.1. */
const assertLocalOnly = (request: FuzzRequest): void => {
  const strings = [...jsonStrings(request.body)]
  for (const [name, value] of Object.entries(request.headers)) {
    strings.push(name, ...(JSON_VALUED.has(name) ? jsonStrings(value) : [value]))
  }
  for (const text of strings) {
    // the URL parser drops tabs and newlines anywhere
    const normalized = text.replace(/[\t\n\r]/g, "")
    for (const match of normalized.matchAll(URL_START)) {
      const url = URL.parse(normalized.slice(match.index).split(/[\s"'<>\\]/)[0] ?? "")
      if (url !== null && url.hostname !== "" && url.hostname !== "127.0.0.1") {
        throw new Error(`the fuzz test generated a URL to ${url.hostname}: ${request.label}`)
      }
    }
  }
  if ([request.body, ...Object.values(request.headers)].some((text) => text.includes("@fz-int-"))) {
    throw new Error(`the fuzz test named an integration it may have created: ${request.label}`)
  }
}

// ---------------------------------------------------------------------------------------------
// Sending and judging
// ---------------------------------------------------------------------------------------------

type Answer =
  | { readonly _tag: "Answered"; readonly status: number; readonly text: string; readonly ms: number }
  | { readonly _tag: "NoAnswer"; readonly ms: number }
  | { readonly _tag: "Broken"; readonly cause: string; readonly ms: number }

type ProblemKind =
  | "no answer within 2 s"
  | "connection broken"
  | "5xx"
  | "not the error envelope"
  | "accepted, must be refused"

interface Verdict {
  readonly request: FuzzRequest
  readonly answer: Answer
  readonly traceId: string
  readonly problems: ReadonlyArray<{ readonly kind: ProblemKind; readonly detail: string }>
}

const envelopeProblem = (text: string): string | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return "the body is not JSON"
  }
  if (!isRecord(parsed) || !isRecord(parsed.error)) return "no `error` object"
  const { message, type, param, code } = parsed.error
  if (typeof message !== "string" || message.trim() === "") return "error.message is not a non-empty string"
  if (typeof type !== "string") return "error.type is not a string"
  if (!("param" in parsed.error) || !(param === null || typeof param === "string")) return "error.param is missing"
  if (!("code" in parsed.error) || !(code === null || typeof code === "string")) return "error.code is missing"
  return undefined
}

const judge = (request: FuzzRequest, answer: Answer, traceId: string): Verdict => {
  const problems: Array<Verdict["problems"][number]> = []
  if (answer._tag === "NoAnswer") problems.push({ kind: "no answer within 2 s", detail: "" })
  else if (answer._tag === "Broken") problems.push({ kind: "connection broken", detail: answer.cause })
  else if (answer.status >= 300) {
    if (answer.status >= 500) problems.push({ kind: "5xx", detail: String(answer.status) })
    const problem = envelopeProblem(answer.text)
    if (problem !== undefined) problems.push({ kind: "not the error envelope", detail: problem })
  } else if (request.refuse !== undefined) {
    problems.push({ kind: "accepted, must be refused", detail: request.refuse })
  }
  return { request, answer, traceId, problems }
}

interface Gateway {
  current: GatewayProcess.GatewayProcess
  /** Every process started, for the log lines of a trace id. */
  readonly all: Array<GatewayProcess.GatewayProcess>
  restarts: number
  /** Set while the process is being checked or replaced; sends wait for it. */
  recovering: Promise<void> | undefined
  /** Sends not yet judged, so that a category ends only when its last request has. */
  readonly inFlight: Set<Promise<Verdict>>
  readonly fakeUrl: string
}

let serial = 0
const send = (gateway: Gateway, request: FuzzRequest): Promise<Verdict> => {
  const sending = sendNow(gateway, request)
  gateway.inFlight.add(sending)
  return sending.finally(() => gateway.inFlight.delete(sending))
}

const sendNow = async (gateway: Gateway, request: FuzzRequest): Promise<Verdict> => {
  while (gateway.recovering !== undefined) await gateway.recovering
  const headers = { "x-gateway-trace-id": `fuzz-${++serial}`, ...request.headers }
  const traceId = headers["x-gateway-trace-id"]
  const started = performance.now()
  const ms = () => Math.round(performance.now() - started)
  try {
    const response = await fetch(`${gateway.current.baseUrl}${request.path}`, {
      method: request.method,
      headers,
      body: request.body,
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS)
    })
    const text = await response.text()
    return judge(request, { _tag: "Answered", status: response.status, text, ms: ms() }, traceId)
  } catch (error) {
    const timedOut = error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError")
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error)
    const answer: Answer = timedOut ? { _tag: "NoAnswer", ms: ms() } : { _tag: "Broken", cause, ms: ms() }
    // timed before recovering, which may wait for the process or replace it
    if (timedOut) await recover(gateway)
    return judge(request, answer, traceId)
  }
}

/** Waits for every send and recovery still running (an interrupted shrink may leave one behind). */
const settle = async (gateway: Gateway): Promise<void> => {
  while (gateway.inFlight.size > 0 || gateway.recovering !== undefined) {
    await Promise.all([...gateway.inFlight, gateway.recovering])
  }
}

const healthy = (process: GatewayProcess.GatewayProcess) =>
  fetch(`${process.baseUrl}/health`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false)

/** After a request got no answer: the process answers /health within ~2.5 s, or is replaced. */
const recover = (gateway: Gateway): Promise<void> => {
  gateway.recovering ??= (async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await healthy(gateway.current)) return
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    gateway.restarts++
    await gateway.current.stop("SIGKILL")
    gateway.current = await startGateway(gateway.fakeUrl)
    gateway.all.push(gateway.current)
  })().finally(() => {
    gateway.recovering = undefined
  })
  return gateway.recovering
}

/** A gateway that has answered one request through the fake, so no fuzz request pays for the first. */
const startGateway = async (fakeUrl: string): Promise<GatewayProcess.GatewayProcess> => {
  const started = await GatewayProcess.start()
  await fetch(`${started.baseUrl}${chatSpec.path}`, {
    method: "POST",
    headers: viaFake({ fakeUrl, configId: "" }),
    body: validChatText,
    signal: AbortSignal.timeout(10_000)
  }).then((response) => response.text())
  return started
}

// ---------------------------------------------------------------------------------------------
// A category: every request, 16 at a time; then the first failures replayed alone and shrunk
// ---------------------------------------------------------------------------------------------

interface Category {
  readonly name: string
  readonly runs: number
  readonly arbitrary: (world: World) => fc.Arbitrary<FuzzRequest>
}

type Replay = "fails alone" | "passes alone" | "not replayed"

interface Shown {
  readonly original: Verdict
  readonly replay: Replay
  readonly shrunk: Verdict | undefined
  readonly shrinks: number
}

/** A failure that passed when replayed alone, and how it went then. */
interface Bystander {
  readonly original: Verdict
  readonly alone: Verdict | undefined
}

interface CategoryResult {
  readonly name: string
  readonly sent: number
  readonly notSent: number
  readonly byStatus: Readonly<Record<string, number>>
  /** The three slowest answered requests, to see what may hold the process. */
  readonly slowest: ReadonlyArray<Verdict>
  readonly failures: ReadonlyArray<Verdict>
  readonly shown: ReadonlyArray<Shown>
  /** Failures that passed when replayed alone. */
  readonly bystanders: ReadonlyArray<Bystander>
  readonly restarts: number
  readonly generatedMs: number
  readonly ms: number
}

const runCategory = async (
  gateway: Gateway,
  world: World,
  category: Category,
  seed: number
): Promise<CategoryResult> => {
  const started = performance.now()
  const arbitrary = category.arbitrary(world)
  // sampled through a property, so that run i here is run i of the replay in `shrink`
  const property = fc.asyncProperty<[FuzzRequest]>(arbitrary, async () => true)
  const requests = fc.sample(property, { seed, numRuns: category.runs }).map(([request]) => request)
  requests.forEach(assertLocalOnly)
  const generatedMs = Math.round(performance.now() - started)

  const restartsBefore = gateway.restarts
  const verdicts: Array<Verdict | undefined> = requests.map(() => undefined)
  let next = 0
  const worker = async () => {
    while (next < requests.length && gateway.restarts - restartsBefore < RESTARTS_PER_CATEGORY) {
      const index = next++
      const request = requests[index]
      if (request !== undefined) verdicts[index] = await send(gateway, request)
    }
  }
  await Promise.all(many(CONCURRENCY, worker))

  // replayed kind by kind in turn, so that each kind of failure gets its causes shown
  const failing = verdicts.flatMap((verdict, index) => ((verdict?.problems.length ?? 0) > 0 ? [index] : []))
  const kinds = [...new Set(failing.map((index) => verdicts[index]?.problems[0]?.kind))]
  const queues = kinds.map((kind) => failing.filter((index) => verdicts[index]?.problems[0]?.kind === kind))
  const order = many(
    Math.max(0, ...queues.map((queue) => queue.length)),
    (round) => queues.flatMap((q) => q[round] ?? [])
  )
    .flat()
  const shown: Array<Shown> = []
  const bystanders: Array<Bystander> = []
  const replayUntil = performance.now() + REPLAY_BUDGET_MS
  const budget = { restarts: REPLAY_RESTARTS }
  for (const index of order.slice(0, MAX_REPLAYS)) {
    const original = verdicts[index]
    if (original === undefined || shown.length >= SHOWN_PER_CATEGORY || performance.now() > replayUntil) break
    // without restarts left, a failure that holds the process cannot be told from its bystanders
    if (budget.restarts <= 0 && shown.length > 0) break
    const { alone, ...replayed } = await shrink(gateway, arbitrary, seed, index, original, budget)
    if (replayed.replay === "passes alone") bystanders.push({ original, alone })
    else shown.push({ original, ...replayed })
  }
  await settle(gateway)

  const done = verdicts.filter((verdict): verdict is Verdict => verdict !== undefined)
  const byStatus: Record<string, number> = {}
  for (const { answer } of done) {
    const key = answer._tag === "Answered" ? `${Math.floor(answer.status / 100)}xx` : answer._tag
    byStatus[key] = (byStatus[key] ?? 0) + 1
  }
  return {
    name: category.name,
    sent: done.length,
    notSent: requests.length - done.length,
    byStatus,
    slowest: done.filter((v) => v.answer._tag === "Answered").sort((a, b) => b.answer.ms - a.answer.ms).slice(0, 3),
    failures: done.filter((verdict) => verdict.problems.length > 0),
    shown,
    bystanders,
    restarts: gateway.restarts - restartsBefore,
    generatedMs,
    ms: Math.round(performance.now() - started)
  }
}

/**
 * Replays run `index` of the seed alone, on a process that answers, and shrinks it while it fails
 * the same way; `budget` holds the restarts the category may still spend on replays.
 */
const shrink = async (
  gateway: Gateway,
  arbitrary: fc.Arbitrary<FuzzRequest>,
  seed: number,
  index: number,
  original: Verdict,
  budget: { restarts: number }
): Promise<Omit<Shown, "original"> & { readonly alone: Verdict | undefined }> => {
  if (budget.restarts <= 0) return { replay: "not replayed", shrunk: undefined, shrinks: 0, alone: undefined }
  const spend = async <A>(run: () => Promise<A>): Promise<A> => {
    const before = gateway.restarts
    const result = await run()
    budget.restarts -= gateway.restarts - before
    return result
  }
  // a process still held by an earlier request would blame this one
  await spend(() => recover(gateway))
  const kind = original.problems[0]?.kind
  let last: Verdict | undefined
  let alone: Verdict | undefined
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (request) => {
      assertLocalOnly(request)
      // out of restarts, shrinking stops where it is; the first replay is always sent
      if (alone !== undefined && budget.restarts <= 0) return true
      const verdict = await spend(() => send(gateway, request))
      alone ??= verdict
      const fails = verdict.problems.some((problem) => problem.kind === kind)
      if (fails) last = verdict
      return !fails
    }),
    // numRuns 1: the run at `path` and its shrinks only, no further runs after it
    { seed, path: String(index), numRuns: 1, plugins: [fc.interruptAfterTimeLimit(SHRINK_BUDGET_MS)] }
  )
  const replay = details.failed ? "fails alone" : "passes alone"
  return { replay, shrunk: last, shrinks: details.numShrinks, alone }
}

// ---------------------------------------------------------------------------------------------
// Reports
// ---------------------------------------------------------------------------------------------

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 60)} … ${text.slice(-40)} (${text.length} chars)`

const describeVerdict = (gateway: Gateway, world: World, verdict: Verdict): string => {
  const { request, answer } = verdict
  // the headers every request starts from are left out: what is shown is what was generated
  const usual = viaFake(world)
  const headers = Object.entries(request.headers).filter(([name, value]) => usual[name] !== value)
  const got = answer._tag === "Answered"
    ? `${answer.status} in ${answer.ms} ms: ${clip(answer.text, 300)}`
    : answer._tag === "NoAnswer"
    ? `no answer within ${ANSWER_WITHIN_MS} ms`
    : `connection broken after ${answer.ms} ms: ${answer.cause}`
  const log = gateway.all.flatMap((process) => process.output().split("\n")).filter((line) =>
    line.includes(verdict.traceId)
  ).slice(0, 3).map((line) => clip(line, 400))
  return [
    `      ${request.method} ${request.path} — ${request.label}`,
    `      problems: ${verdict.problems.map((p) => `${p.kind}${p.detail === "" ? "" : ` (${p.detail})`}`).join("; ")}`,
    `      headers: ${
      headers.length === 0 ? "the usual" : headers.map(([n, v]) => `${n}: ${clip(v, 160)}`).join(" | ")
    }`,
    `      body: ${clip(request.body, 300)}`,
    `      answer: ${got}`,
    ...log.map((line) => `      gateway log: ${line}`)
  ].join("\n")
}

const failureReport = (gateway: Gateway, world: World, result: CategoryResult): string => {
  const counts = new Map<string, number>()
  for (const { problems } of result.failures) {
    for (const { kind } of problems) counts.set(kind, (counts.get(kind) ?? 0) + 1)
  }
  const lines = [
    `${result.name}: ${result.failures.length} of ${result.sent} requests failed (${
      [...counts].map(([kind, n]) => `${kind}: ${n}`).join(", ")
    })`
  ]
  if (result.restarts > 0) {
    lines.push(`  the process stopped answering /health and was replaced ${result.restarts} time(s)`)
  }
  if (result.notSent > 0) {
    lines.push(`  ${result.notSent} requests were not sent: cut short after ${RESTARTS_PER_CATEGORY} replacements`)
  }
  result.shown.forEach((item, position) => {
    lines.push(`  #${position + 1} as generated:`, describeVerdict(gateway, world, item.original))
    if (item.replay === "not replayed") lines.push("    (not replayed alone: the category spent its restarts)")
    if (item.shrunk !== undefined && item.shrinks > 0) {
      lines.push(`    shrunk (${item.shrinks} steps):`, describeVerdict(gateway, world, item.shrunk))
    }
  })
  if (result.bystanders.length > 0) {
    lines.push("  did not fail when replayed alone (a bystander of a blocked process, or state-dependent), e.g.:")
  }
  for (const { original, alone } of result.bystanders.slice(0, 3)) {
    const then = alone?.answer._tag === "Answered" ? `${alone.answer.status} in ${alone.answer.ms} ms` : "-"
    lines.push(`      ${original.problems.map((p) => p.kind).join("; ")} — ${original.request.label} (alone: ${then})`)
  }
  return lines.join("\n")
}

const COLUMNS = words("sent 2xx 4xx 5xx none broken failures restarts gen-ms ms")

const summary = (results: ReadonlyArray<CategoryResult>): string => {
  const row = (name: string, cells: ReadonlyArray<string | number>) =>
    name.padEnd(17) +
    cells.map((cell, index) => String(cell).padStart(Math.max(COLUMNS[index]?.length ?? 0, 6) + 2)).join("")
  const lines = [
    `fuzz (seed ${SEED}): ${results.reduce((sum, r) => sum + r.sent, 0)} requests`,
    row("category", COLUMNS)
  ]
  for (const r of results) {
    const statuses = ["2xx", "4xx", "5xx", "NoAnswer", "Broken"].map((key) => r.byStatus[key] ?? 0)
    lines.push(row(r.name, [r.sent, ...statuses, r.failures.length, r.restarts, r.generatedMs, r.ms]))
  }
  lines.push("slowest answers:")
  for (const r of results) {
    for (const { answer, request } of r.slowest) {
      const status = answer._tag === "Answered" ? answer.status : answer._tag
      lines.push(`  ${r.name}: ${answer.ms} ms (${status}) ${clip(request.label, 140)}`)
    }
  }
  return lines.join("\n")
}

// ---------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------

const categories: ReadonlyArray<Category> = [
  { name: "chat body", runs: 1_800, arbitrary: (world) => inferenceBody(world, chatSpec) },
  { name: "completions body", runs: 800, arbitrary: (world) => inferenceBody(world, completionSpec) },
  { name: "embeddings body", runs: 800, arbitrary: (world) => inferenceBody(world, embeddingSpec) },
  { name: "raw body", runs: 1_000, arbitrary: rawBody },
  { name: "deep body", runs: 600, arbitrary: deepBody },
  { name: "headers", runs: 1_600, arbitrary: headers },
  { name: "management", runs: 1_600, arbitrary: management },
  { name: "config header", runs: 1_500, arbitrary: configHeader },
  { name: "config regex", runs: 100, arbitrary: configRegex },
  { name: "deep config", runs: 400, arbitrary: deepConfig }
]

const FAKE_CLI = new URL("../../../packages/fake-providers/src/cli.ts", import.meta.url).pathname

/**
 * The FakeOpenAI in a process of its own: answering thousands of requests in the test's process
 * would delay the test's own timers and blame the gateway for the fake's time.
 */
const startFake = (): Promise<{ readonly baseUrl: string; readonly child: ChildProcess }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FAKE_CLI, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] })
    let output = ""
    child.once("exit", (code) => reject(new Error(`the fake exited with ${code}: ${output}`)))
    child.stdout.on("data", (data: Buffer) => {
      output += data.toString()
      const port = /listening http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1]
      if (port !== undefined) resolve({ baseUrl: `http://127.0.0.1:${port}/v1`, child })
    })
  })

describe("fuzz: malformed requests", () => {
  let fake: { readonly baseUrl: string; readonly child: ChildProcess } | undefined
  let gateway: Gateway
  let world: World
  const results: Array<CategoryResult> = []

  beforeAll(async () => {
    fake = await startFake()
    const first = await startGateway(fake.baseUrl)
    gateway = {
      current: first,
      all: [first],
      restarts: 0,
      recovering: undefined,
      inFlight: new Set(),
      fakeUrl: fake.baseUrl
    }
    const created = await call(first.baseUrl, "POST", "/v1/configs", {
      body: { name: "fuzz target", config: { provider: "openai", api_key: "sk", custom_host: fake.baseUrl } }
    })
    world = { fakeUrl: fake.baseUrl, configId: typeof created.body?.id === "string" ? created.body.id : "pc-missing" }
  }, 60_000)

  afterAll(async () => {
    if (results.length > 0) console.log(summary(results))
    await gateway?.current.stop("SIGKILL")
    fake?.child.kill("SIGTERM")
  })

  it("generates more than 10,000 requests", () => {
    expect(categories.reduce((sum, category) => sum + category.runs, 0)).toBeGreaterThan(10_000)
  })

  categories.forEach((category, position) => {
    it(`${category.name}: no 5xx, an answer within 2 s, the error envelope on every refusal`, async () => {
      const result = await runCategory(gateway, world, category, SEED + position)
      results.push(result)
      if (result.failures.length > 0 || result.notSent > 0) expect.fail(failureReport(gateway, world, result))
    }, 240_000)
  })
})
