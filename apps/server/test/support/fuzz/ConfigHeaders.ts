/**
 * The x-gateway-config header: changed configs, texts that are no config, conditional queries
 * that backtrack badly, strategy trees past the depth limit and configs nested thousands deep.
 */
import fc from "fast-check"
import { leaf, modes, mutatedConfig, strategyTree, validConfig } from "./Configs.ts"
import { type Case, type FuzzRequest, headerSafe, JSON_HEADERS, viaFake, type World } from "./FuzzRequest.ts"
import { inferencePath, validBodyOf, validChatText } from "./InferenceBodies.ts"
import { chatSpec } from "./InferenceSpecs.ts"
import { nestedText, openDepth, refusalOfText, toText } from "./JsonText.ts"
import { words } from "./Lists.ts"
import { depth, tooDeep } from "./ValueArbitraries.ts"

/** extensions.md, "Limits of input". */
const MAX_STRATEGY_DEPTH = 10

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

export const configHeader = (world: World): fc.Arbitrary<FuzzRequest> =>
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
export const configRegex = (world: World): fc.Arbitrary<FuzzRequest> =>
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
export const deepConfig = (world: World): fc.Arbitrary<FuzzRequest> =>
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
