import { assert, describe, it } from "@effect/vitest"
import { Check, DefaultPlugin } from "@switchyard/guardrails"
import { Effect, Result } from "effect"
import { checkContext } from "./support/Fake.ts"

const byId = new Map(DefaultPlugin.checks.map((check) => [check.id, check]))

const run = (id: string, parameters: unknown, context: Check.CheckContext) => {
  const check = byId.get(Check.qualify(id))
  if (check === undefined) throw new Error(`no check ${id}`)
  const prepared = check.prepare(parameters)
  if (Result.isFailure(prepared)) throw new Error(prepared.failure)
  return prepared.success(context)
}

type Case = readonly [name: string, id: string, parameters: unknown, text: string, expected: boolean]

const JSON_TEXT = "Here: ```json\n{\"name\": \"Ada\", \"age\": 36}\n```"
const CARD = "my card is 4111 1111 1111 1111"

const cases: ReadonlyArray<Case> = [
  ["regexMatch passes on a match", "regexMatch", { rule: "\\d{3}" }, "call 555 now", true],
  ["regexMatch fails without a match", "regexMatch", { rule: "\\d{3}" }, "call now", false],
  ["regexMatch with not fails on a match", "regexMatch", { rule: "\\d{3}", not: true }, "call 555", false],
  ["sentenceCount passes within bounds", "sentenceCount", { minSentences: 1, maxSentences: 2 }, "One. Two!", true],
  ["sentenceCount fails above the maximum", "sentenceCount", { maxSentences: 1 }, "One. Two? Three.", false],
  ["sentenceCount with not passes outside the bounds", "sentenceCount", { maxSentences: 1, not: true }, "A. B.", true],
  ["wordCount passes within bounds", "wordCount", { minWords: 2, maxWords: 3 }, "three little words", true],
  ["wordCount fails below the minimum", "wordCount", { minWords: 5 }, "too short", false],
  ["wordCount with not fails within bounds", "wordCount", { minWords: 1, not: true }, "hello", false],
  ["characterCount passes within bounds", "characterCount", { maxCharacters: 5 }, "hello", true],
  ["characterCount fails above the maximum", "characterCount", { maxCharacters: 4 }, "hello", false],
  [
    "jsonSchema passes on valid JSON",
    "jsonSchema",
    {
      schema: { type: "object", required: ["name"], properties: { age: { type: "number" } } }
    },
    JSON_TEXT,
    true
  ],
  [
    "jsonSchema fails on JSON that breaks the schema",
    "jsonSchema",
    { schema: { required: ["email"] } },
    JSON_TEXT,
    false
  ],
  ["jsonSchema fails on text without JSON", "jsonSchema", { schema: { type: "object" } }, "no json", false],
  [
    "jsonSchema with not passes on invalid JSON",
    "jsonSchema",
    { schema: { required: ["email"] }, not: true },
    JSON_TEXT,
    true
  ],
  [
    "jsonKeys all passes when every key is there",
    "jsonKeys",
    { keys: ["name", "age"], operator: "all" },
    JSON_TEXT,
    true
  ],
  ["jsonKeys all fails when one is missing", "jsonKeys", { keys: ["name", "x"], operator: "all" }, JSON_TEXT, false],
  ["jsonKeys none passes when none is there", "jsonKeys", { keys: ["x"], operator: "none" }, JSON_TEXT, true],
  ["contains any passes on one word", "contains", { words: ["cat", "dog"], operator: "any" }, "a dog", true],
  ["contains all fails when one is missing", "contains", { words: ["cat", "dog"], operator: "all" }, "a dog", false],
  ["contains none fails when one is there", "contains", { words: ["dog"], operator: "none" }, "a dog", false],
  ["validUrls passes on well-formed URLs", "validUrls", {}, "see https://example.com/a?b=1.", true],
  ["validUrls fails on a malformed URL", "validUrls", {}, "see https://exa_mple..com", false],
  ["validUrls with onlyDNS fails on an IP", "validUrls", { onlyDNS: true }, "see http://10.0.0.1/x", false],
  ["validUrls fails without any URL", "validUrls", {}, "nothing here", false],
  ["containsCode passes on a code block", "containsCode", {}, "```py\nprint(1)\n```", true],
  ["containsCode with format fails on another language", "containsCode", { format: "SQL" }, "```py\nx\n```", false],
  ["containsCode with format passes on an alias", "containsCode", { format: "Python" }, "```py\nx\n```", true],
  ["containsCode with not passes on plain text", "containsCode", { not: true }, "plain words", true],
  ["endsWith passes on the suffix", "endsWith", { suffix: "Bye" }, "Thanks. Bye.", true],
  ["endsWith fails otherwise", "endsWith", { suffix: "Bye" }, "Thanks.", false],
  ["allUppercase passes on upper case", "allUppercase", {}, "HELLO, WORLD 1", true],
  ["allUppercase fails on mixed case", "allUppercase", {}, "Hello", false],
  ["allLowercase passes on lower case", "allLowercase", {}, "hello", true],
  ["allLowercase with not passes on mixed case", "allLowercase", { not: true }, "Hello", true],
  ["notNull passes on text", "notNull", {}, "x", true],
  ["notNull fails on white space", "notNull", {}, "  ", false],
  ["piiDetection fails on an email", "piiDetection", {}, "write to ada@example.com", false],
  ["piiDetection fails on a card number that passes Luhn", "piiDetection", { categories: ["creditCard"] }, CARD, false],
  [
    "piiDetection passes on a number that fails Luhn",
    "piiDetection",
    { categories: ["creditCard"] },
    "4111 1111 1111 1112",
    true
  ],
  ["piiDetection fails on a phone number", "piiDetection", { categories: ["phone"] }, "call +1 415 555 0100", false],
  ["piiDetection passes on clean text", "piiDetection", {}, "nothing personal", true],
  ["log always passes", "log", {}, "anything", true]
]

describe("default plugin checks on text", () => {
  for (const [name, id, parameters, text, expected] of cases) {
    it.effect(name, () =>
      Effect.gen(function*() {
        const result = yield* run(id, parameters, checkContext(text))
        assert.strictEqual(result.verdict, expected, result.explanation)
      }))
  }

  it.effect("judges the answer, not the request, after the provider", () =>
    Effect.gen(function*() {
      const result = yield* run(
        "default.regexMatch",
        { rule: "secret" },
        checkContext("secret", { answerText: "fine" })
      )
      assert.isFalse(result.verdict)
    }))
})

type ContextCase = readonly [
  name: string,
  id: string,
  parameters: unknown,
  context: Check.CheckContext,
  expected: boolean
]

const contextCases: ReadonlyArray<ContextCase> = [
  ["modelWhitelist passes on a listed model", "modelWhitelist", { models: ["gpt-4o-mini"] }, checkContext("x"), true],
  ["modelWhitelist fails on another model", "modelWhitelist", { models: ["gpt-4o"] }, checkContext("x"), false],
  [
    "modelWhitelist with not fails on a listed model",
    "modelWhitelist",
    { models: ["gpt-4o-mini"], not: true },
    checkContext("x"),
    false
  ],
  [
    "modelRules allows what the metadata unlocks",
    "modelRules",
    {
      rules: { defaults: ["small"], metadata: { team: { ml: ["big"] } } }
    },
    checkContext("x", { model: "big", metadata: { team: "ml" } }),
    true
  ],
  [
    "modelRules falls back to defaults",
    "modelRules",
    {
      rules: { defaults: ["small"], metadata: { team: { ml: ["big"] } } }
    },
    checkContext("x", { model: "big" }),
    false
  ],
  [
    "allowedRequestTypes passes on an allowed type",
    "allowedRequestTypes",
    { allowedTypes: ["chatComplete"] },
    checkContext("x"),
    true
  ],
  [
    "allowedRequestTypes fails on a blocked type",
    "allowedRequestTypes",
    { blockedTypes: ["embed"] },
    checkContext("x", { endpoint: "embed" }),
    false
  ],
  [
    "requiredMetadataKeys all passes with every key",
    "requiredMetadataKeys",
    { metadataKeys: ["a", "b"], operator: "all" },
    checkContext("x", { metadata: { a: "1", b: "2" } }),
    true
  ],
  [
    "requiredMetadataKeys all fails with one missing",
    "requiredMetadataKeys",
    { metadataKeys: ["a", "b"] },
    checkContext("x", { metadata: { a: "1" } }),
    false
  ],
  [
    "requiredMetadataKeys none passes without them",
    "requiredMetadataKeys",
    { metadataKeys: ["a"], operator: "none" },
    checkContext("x"),
    true
  ],
  [
    "jwt fails without a token in the header",
    "jwt",
    { jwksUri: "http://127.0.0.1:1/jwks", headerKey: "x-token" },
    checkContext("x"),
    false
  ]
]

describe("default plugin checks on the request", () => {
  for (const [name, id, parameters, context, expected] of contextCases) {
    it.effect(name, () =>
      Effect.gen(function*() {
        const result = yield* run(id, parameters, context)
        assert.strictEqual(result.verdict, expected, result.explanation)
      }))
  }
})

describe("mutator checks", () => {
  it.effect("regexReplace rewrites every match", () =>
    Effect.gen(function*() {
      const result = yield* run("regexReplace", { rule: "\\d+", redactText: "#" }, checkContext("a1b22"))
      assert.strictEqual(result.rewrite?.apply("a1b22"), "a#b#")
    }))

  it.effect("regexReplace counts and replaces empty and literal-looking matches as JavaScript would", () =>
    Effect.gen(function*() {
      const result = yield* run("regexReplace", { rule: "x*", redactText: "$1" }, checkContext("ab"))
      assert.strictEqual(result.rewrite?.apply("ab"), "$1a$1b$1")
      assert.deepStrictEqual(result.data, { matches: 3 })
    }))

  it.effect("a pattern that backtracks catastrophically in JavaScript runs in linear time", () =>
    Effect.gen(function*() {
      const text = `${"a".repeat(5_000)}!`
      const started = performance.now()
      const match = yield* run("regexMatch", { rule: "^(a|aa)+$" }, checkContext(text))
      const replace = yield* run("regexReplace", { rule: "(a+)+b" }, checkContext(text))
      assert.isFalse(match.verdict)
      assert.strictEqual(replace.rewrite?.apply(text), text)
      const schema = yield* run(
        "jsonSchema",
        { schema: { type: "object", properties: { name: { type: "string", pattern: "^(a|aa)+$" } } } },
        checkContext(JSON.stringify({ name: text }))
      )
      assert.isFalse(schema.verdict)
      assert.isBelow(performance.now() - started, 1_000)
    }))

  it.effect("piiDetection with redact replaces PII by labels and passes", () =>
    Effect.gen(function*() {
      const result = yield* run("piiDetection", { redact: true }, checkContext(CARD))
      assert.isTrue(result.verdict)
      assert.strictEqual(
        result.rewrite?.apply(`${CARD} or ada@example.com`),
        "my card is [REDACTED_CREDIT_CARD] or [REDACTED_EMAIL]"
      )
    }))
})

describe("parameters", () => {
  it("an invalid regular expression is refused when the check is prepared", () => {
    const check = byId.get("default.regexMatch")
    assert.isTrue(check !== undefined && Result.isFailure(check.prepare({ rule: "(" })))
  })

  it("a pattern RE2 cannot match in linear time (a backreference, lookaround) is refused", () => {
    const check = byId.get("default.regexMatch")
    for (const rule of ["(a)\\1", "a(?=b)"]) {
      assert.isTrue(check !== undefined && Result.isFailure(check.prepare({ rule })))
    }
  })
})
