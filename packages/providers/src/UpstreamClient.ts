/**
 * The pooled keep-alive client every adapter calls providers with. It is undici's Agent used
 * directly rather than through effect/http's HttpClient: on the gateway's hot path the wrapper
 * cost more than the call (see the README's benchmark), and adapters need only POST with a
 * JSON body, the status, the headers and the body as bytes or as a stream.
 */
import { GatewayError } from "@switchyard/core"
import { Context, Effect, Layer, Stream } from "effect"
import { Agent, type Dispatcher } from "undici"

export interface UpstreamRequest {
  /** Short provider name, for errors. */
  readonly provider: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The serialised body. */
  readonly body: string | Uint8Array
}

export interface UpstreamResponse {
  readonly status: number
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** The whole body; read it, or `stream` it, once. */
  readonly bytes: Effect.Effect<Uint8Array, GatewayError.UpstreamUnreachable>
  readonly stream: Stream.Stream<Uint8Array, GatewayError.UpstreamUnreachable>
  /** Drops the body unread, freeing its connection: for answers the caller will not read. */
  readonly discard: Effect.Effect<void>
}

export class UpstreamClient extends Context.Service<UpstreamClient, {
  /** Sends a POST; a transport failure is `UpstreamUnreachable`. Interrupting it aborts the call. */
  readonly post: (request: UpstreamRequest) => Effect.Effect<UpstreamResponse, GatewayError.UpstreamUnreachable>
}>()("@switchyard/providers/UpstreamClient") {
  /** Over one undici Agent: a keep-alive pool per origin, closed with the layer. */
  static readonly layer = (options?: Agent.Options): Layer.Layer<UpstreamClient> =>
    Layer.effect(
      UpstreamClient,
      Effect.map(
        Effect.acquireRelease(
          Effect.sync(() => new Agent({ keepAliveTimeout: 30_000, connections: 512, ...options })),
          (agent) => Effect.promise(() => agent.close())
        ),
        (agent) => UpstreamClient.of({ post: (request) => post(agent, request) })
      )
    )
}

const unreachable = (provider: string, cause: unknown) =>
  new GatewayError.UpstreamUnreachable({
    provider,
    message: cause instanceof Error ? describe(cause) : "the connection failed"
  })

/** undici puts the useful part (ECONNREFUSED, other side closed) in the cause or the code. */
const describe = (error: Error): string => {
  const cause = error.cause instanceof Error ? error.cause.message : undefined
  return cause ?? error.message
}

const post = (agent: Agent, request: UpstreamRequest) =>
  Effect.callback<UpstreamResponse, GatewayError.UpstreamUnreachable>((resume, signal) => {
    const url = new URL(request.url)
    agent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal
    }).then(
      (data) => resume(Effect.succeed(toResponse(request.provider, data))),
      (cause) => resume(Effect.fail(unreachable(request.provider, cause)))
    )
  })

const toResponse = (provider: string, data: Dispatcher.ResponseData): UpstreamResponse => {
  const body = data.body
  return {
    status: data.statusCode,
    headers: flatten(data.headers),
    bytes: Effect.callback((resume, signal) => {
      const abort = () => body.destroy()
      signal.addEventListener("abort", abort, { once: true })
      body.bytes().then(
        (bytes) => resume(Effect.succeed(bytes)),
        () =>
          resume(
            Effect.fail(
              new GatewayError.UpstreamUnreachable({ provider, message: "the answer was cut before it was complete" })
            )
          )
      ).finally(() => signal.removeEventListener("abort", abort))
    }),
    stream: Stream.fromAsyncIterable(
      body,
      () => new GatewayError.UpstreamUnreachable({ provider, message: "the stream was cut" })
    ),
    discard: Effect.sync(() => {
      body.destroy()
    })
  }
}

const flatten = (headers: Dispatcher.ResponseData["headers"]): Record<string, string> => {
  const flat: Record<string, string> = {}
  for (const name in headers) {
    const value = headers[name]
    if (value !== undefined) flat[name] = typeof value === "string" ? value : value.join(", ")
  }
  return flat
}
