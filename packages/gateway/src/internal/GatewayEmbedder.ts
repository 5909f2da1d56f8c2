/**
 * The semantic cache's embedder through the gateway itself (`GATEWAY_CACHE_EMBEDDING_MODEL`, a
 * model written `@slug/model` or any model a config can reach): the embeddings request runs the
 * same pipeline as a client's, under the admin principal of the default workspace. The cache is
 * part of that pipeline, so the embedder reaches the gateway through a slot filled once the
 * pipeline is built.
 */
import { Authenticator } from "@switchyard/auth"
import { Embedder } from "@switchyard/cache"
import { Gateway, GatewayError, RequestContext } from "@switchyard/core"
import { Context, Deferred, Effect, Layer, Schema } from "effect"

class GatewaySlot extends Context.Service<GatewaySlot, Deferred.Deferred<Gateway.Gateway["Service"]>>()(
  "@switchyard/gateway/GatewaySlot"
) {}

const slot = Layer.effect(GatewaySlot, Deferred.make<Gateway.Gateway["Service"]>())

const EmbeddingList = Schema.Struct({ data: Schema.Array(Schema.Struct({ embedding: Schema.Array(Schema.Finite) })) })
const decodeEmbeddings = Schema.decodeUnknownEffect(EmbeddingList)

const embedThrough = (gateway: Gateway.Gateway["Service"], model: string, texts: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const context = yield* RequestContext.make({
      traceId: RequestContext.generateTraceId(),
      headers: {},
      principal: Authenticator.adminPrincipal,
      receivedAt: Date.now()
    })
    const response = yield* gateway.handle({ endpoint: "embeddings", body: { model, input: [...texts] }, context })
    if (response._tag !== "Json") {
      return yield* new GatewayError.InternalError({ message: "embeddings answered with a stream" })
    }
    const list = yield* decodeEmbeddings(response.body())
    return list.data.map((item) => item.embedding)
  })

/**
 * The embedder, and the layer that hands it the gateway once built: provide `embedder` to the
 * cache and `connect` after the pipeline.
 */
export const make = (model: string) => ({
  embedder: Layer.unwrap(
    GatewaySlot.useSync((gateway) =>
      Embedder.layerRemote({
        id: model,
        embed: (texts) => Effect.flatMap(Deferred.await(gateway), (ready) => embedThrough(ready, model, texts))
      })
    )
  ).pipe(Layer.provide(slot)),
  connect: Layer.effectDiscard(
    Effect.gen(function*() {
      const gateway = yield* Gateway.Gateway
      yield* Deferred.succeed(yield* GatewaySlot, gateway)
    })
  ).pipe(Layer.provide(slot))
})
