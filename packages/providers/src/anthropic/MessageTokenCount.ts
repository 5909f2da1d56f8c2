/**
 * What the count calls of Anthropic and of the clouds that host Claude share: the answer read as
 * a number (`{input_tokens}` from Anthropic and Vertex AI, `{inputTokens}` from Bedrock's
 * CountTokens), an error status kept as the provider's, and the `anthropic-beta` header that goes
 * with a body using beta features.
 */
import { GatewayError } from "@switchyard/core"
import { Effect, Schema } from "effect"
import { ensureOk } from "../UpstreamCall.ts"
import type { UpstreamResponse } from "../UpstreamClient.ts"

export const BETA_HEADER = "anthropic-beta"

const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const decodeAnthropic = Schema.decodeUnknownEffect(Schema.fromJsonString(Schema.Struct({ input_tokens: Count })))
const decodeBedrock = Schema.decodeUnknownEffect(Schema.fromJsonString(Schema.Struct({ inputTokens: Count })))
const textDecoder = new TextDecoder()

const textOf = (provider: string, response: UpstreamResponse) =>
  Effect.flatMap(ensureOk(provider)(response), (ok) => Effect.map(ok.bytes, (bytes) => textDecoder.decode(bytes)))

const unreadable = (provider: string, field: string) =>
  new GatewayError.UpstreamUnreachable({ provider, message: `answered a token count without ${field}` })

/** Anthropic's and Vertex AI's answer, `{"input_tokens": n}`. */
export const readAnthropicCount =
  (provider: string) => (response: UpstreamResponse): Effect.Effect<number, GatewayError.GatewayError> =>
    textOf(provider, response).pipe(
      Effect.flatMap((text) => Effect.mapError(decodeAnthropic(text), () => unreadable(provider, "input_tokens"))),
      Effect.map((count) => count.input_tokens)
    )

/** Bedrock's CountTokens answer, `{"inputTokens": n}`. */
export const readBedrockCount =
  (provider: string) => (response: UpstreamResponse): Effect.Effect<number, GatewayError.GatewayError> =>
    textOf(provider, response).pipe(
      Effect.flatMap((text) => Effect.mapError(decodeBedrock(text), () => unreadable(provider, "inputTokens"))),
      Effect.map((count) => count.inputTokens)
    )
