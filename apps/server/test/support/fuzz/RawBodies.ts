/**
 * Inference bodies written as text, where a value cannot say what is wrong: values nested
 * thousands deep in the members that take any JSON, and texts that are no JSON object at all.
 */
import fc from "fast-check"
import { type FuzzRequest, viaFake, type World } from "./FuzzRequest.ts"
import { inferencePath, validChatText } from "./InferenceBodies.ts"
import { chatSpec, completionSpec, embeddingSpec } from "./InferenceSpecs.ts"
import { nestedText, openDepth, refusalOfText } from "./JsonText.ts"
import { words } from "./Lists.ts"
import { depth, nesting, tooDeep } from "./ValueArbitraries.ts"

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

export const deepBody = (world: World): fc.Arbitrary<FuzzRequest> =>
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

export const rawText = fc.oneof(
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

export const rawBody = (world: World): fc.Arbitrary<FuzzRequest> =>
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
