/**
 * The gateway's other headers, one of them changed in each request: metadata, request timeout,
 * provider, custom host (garbage or the fake itself, never a host elsewhere), API keys, trace
 * headers and heads over node's 16 KiB limit.
 */
import fc from "fast-check"
import { ADMIN_KEY } from "../GatewayProcess.ts"
import { type Case, type FuzzRequest, headerSafe, JSON_HEADERS, viaFake, type World } from "./FuzzRequest.ts"
import { inferencePath, validBodyOf } from "./InferenceBodies.ts"
import { isRecord, nestedText, parsedJson, toText } from "./JsonText.ts"
import { words } from "./Lists.ts"
import { depth, nanLike, oddString, scalar, wrongValue } from "./ValueArbitraries.ts"

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
  const parsed = parsedJson(text)
  if (parsed === undefined) return "x-gateway-metadata is not JSON"
  if (!isRecord(parsed.value)) return "x-gateway-metadata is not a JSON object"
  const values = Object.values(parsed.value)
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
    .map((text) => header("x-gateway-api-key", text, (value) => (value === ADMIN_KEY ? undefined : "not a valid key"))),
  // node's parser refuses heads over 16 KiB itself (431): that answer is the gateway's too
  fc.integer({ min: 17_000, max: 40_000 }).map((n) =>
    header("x-gateway-span-name", "s".repeat(n), () => "a head over 16 KiB")
  )
)

export const headers = (world: World): fc.Arbitrary<FuzzRequest> =>
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
