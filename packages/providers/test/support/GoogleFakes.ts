/** The Google fakes as scoped resources, and readers for the adapters' answers. */
import type { GatewayError, GatewayRequest, GatewayResponse } from "@switchyard/core"
import { FakeGemini, FakeVertex } from "@switchyard/fake-providers"
import { Effect, Schema, Stream } from "effect"
import { chunksOf } from "./Upstream.ts"

export const fakeGemini = Effect.acquireRelease(
  Effect.promise(() => FakeGemini.start({ apiKey: "gemini-key" })),
  (fake) => Effect.promise(() => fake.close())
)

export const fakeVertex = (options: FakeVertex.StartOptions = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => FakeVertex.start({ project: "demo-project", region: "europe-west4", ...options })),
    (fake) => Effect.promise(() => fake.close())
  )

const Completion = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("chat.completion"),
  created: Schema.Number,
  model: Schema.String,
  choices: Schema.Array(Schema.Struct({
    index: Schema.Number,
    message: Schema.Struct({
      role: Schema.Literal("assistant"),
      content: Schema.NullOr(Schema.String),
      reasoning_content: Schema.optionalKey(Schema.String),
      tool_calls: Schema.optionalKey(Schema.Array(Schema.Struct({
        id: Schema.String,
        type: Schema.Literal("function"),
        function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
      })))
    }),
    finish_reason: Schema.String
  })),
  usage: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})

/** The chat completion of a JSON answer, checked against OpenAI's shape. */
export const completionOf = (response: GatewayResponse.GatewayResponse) =>
  Schema.decodeUnknownSync(Completion)(response._tag === "Json" ? response.body() : "a stream")

/** Every chunk of a stream answer. */
export const collectChunks = (
  response: GatewayResponse.GatewayResponse
): Effect.Effect<Array<GatewayRequest.JsonObject>, GatewayError.GatewayError> => Stream.runCollect(chunksOf(response))

/** The request body a fake recorded, as a JSON value. */
export const recordedBody = (requests: ReadonlyArray<{ readonly body: unknown }>, index = 0): unknown =>
  requests[index]?.body
