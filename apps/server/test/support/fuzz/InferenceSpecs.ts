/**
 * The three inference endpoints as data: a valid body, its required members, the rule each
 * checked member must keep, and the changes only that endpoint knows (roles, big arrays, …).
 */
import fc from "fast-check"
import { type Json, type JsonRecord, kindOf, type Path, raw, rawNumber, short } from "./JsonText.ts"
import { many, words } from "./Lists.ts"
import { nanLike, oddString, scalar, wrongValue } from "./ValueArbitraries.ts"

export interface Mutation {
  readonly label: string
  readonly path: Path
  /** undefined deletes the member. */
  readonly value: Json | undefined
  readonly refuse: string | undefined
}
export const mutation = (label: string, path: Path, value: Json | undefined, refuse?: string): Mutation => ({
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

export interface BodySpec {
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

export const chatSpec: BodySpec = {
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

export const completionSpec: BodySpec = {
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

export const embeddingSpec: BodySpec = {
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
