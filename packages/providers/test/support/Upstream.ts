/** Shared pieces of the provider tests: the fake provider as a scoped resource, and requests. */
import type { Endpoint, GatewayError, GatewayRequest, GatewayResponse, RequestContext } from "@switchyard/core"
import { FakeOpenAI } from "@switchyard/fake-providers"
import { Effect, Schema, Stream } from "effect"

/** A fake OpenAI provider for the length of the test's scope. */
export const fakeOpenAI = Effect.acquireRelease(
  Effect.promise(() => FakeOpenAI.start()),
  (fake) => Effect.promise(() => fake.close())
)

export const chatBody = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello there" }] }

const context = (headers: Readonly<Record<string, string>>): RequestContext.RequestContext => ({
  traceId: "0123456789abcdef0123456789abcdef",
  spanId: "0123456789abcdef",
  parentSpanId: undefined,
  spanName: undefined,
  metadata: {},
  principal: { keyId: "key-1", workspaceId: "ws-1", scopes: new Set(["admin"]) },
  headers,
  receivedAt: 0
})

export const request = (options: {
  readonly endpoint?: Endpoint.Endpoint
  readonly body?: GatewayRequest.JsonObject
  readonly stream?: boolean
  readonly headers?: Readonly<Record<string, string>>
} = {}): GatewayRequest.GatewayRequest => ({
  endpoint: options.endpoint ?? "chat.completions",
  body: options.body ?? (options.stream === true ? { ...chatBody, stream: true } : chatBody),
  stream: options.stream ?? false,
  context: context(options.headers ?? {})
})

const ChunkChoices = Schema.Struct({
  object: Schema.String,
  choices: Schema.Array(Schema.Struct({
    delta: Schema.Struct({ content: Schema.optional(Schema.NullOr(Schema.String)) }),
    finish_reason: Schema.NullOr(Schema.String)
  }))
})

/** A chunk's object type, content delta and finish reason. */
export const summarise = (chunk: unknown) => {
  const decoded = Schema.decodeUnknownSync(ChunkChoices)(chunk)
  const choice = decoded.choices[0]
  return { object: decoded.object, content: choice?.delta.content ?? "", finish: choice?.finish_reason ?? null }
}

/** The chunks of a stream answer; fails the test for a JSON answer. */
export const chunksOf = (
  response: GatewayResponse.GatewayResponse
): Stream.Stream<GatewayRequest.JsonObject, GatewayError.GatewayError> =>
  response._tag === "Stream" ? response.chunks : Stream.die(new Error("expected a stream answer, got JSON"))

const textDecoder = new TextDecoder()

/** The provider's bytes kept by a JSON answer, as text: undefined when the edge would serialise a value. */
export const rawText = (response: GatewayResponse.GatewayResponse): string | undefined => {
  if (response._tag !== "Json") return undefined
  const text = response.text()
  return typeof text === "string" ? undefined : textDecoder.decode(text)
}
