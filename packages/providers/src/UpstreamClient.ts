/**
 * The pooled keep-alive client every adapter calls providers with: undici's Agent, driven through
 * its lowest-level `dispatch` API rather than through effect/http's HttpClient. On the gateway's
 * hot path the wrappers cost more than the call (see the README's benchmark), and adapters need
 * only a POST with a body, then the status, the headers and the body as bytes or as a stream.
 */
import { GatewayError } from "@switchyard/core"
import { Context, Effect, Layer, type Stream } from "effect"
import { Agent } from "undici"
import { UndiciExchange } from "./internal/UndiciExchange.ts"

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

/** The answer's body is read through the exchange only when a caller asks for it. */
class ExchangeResponse implements UpstreamResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly #exchange: UndiciExchange

  constructor(status: number, headers: Readonly<Record<string, string>>, exchange: UndiciExchange) {
    this.status = status
    this.headers = headers
    this.#exchange = exchange
  }

  get bytes() {
    return this.#exchange.bytes
  }

  get stream() {
    return this.#exchange.stream
  }

  get discard() {
    return Effect.sync(() => this.#exchange.abort())
  }
}

const post = (agent: Agent, request: UpstreamRequest) =>
  Effect.callback<UpstreamResponse, GatewayError.UpstreamUnreachable>((resume) => {
    const url = new URL(request.url)
    const exchange = new UndiciExchange(
      request.provider,
      (head) => resume(Effect.map(head, ({ headers, status }) => new ExchangeResponse(status, headers, exchange)))
    )
    agent.dispatch({
      origin: url.origin,
      path: url.pathname + url.search,
      method: "POST",
      headers: request.headers,
      body: request.body
    }, exchange)
    // interrupted before the answer began: abandon the call and free its socket
    return Effect.sync(() => exchange.abort())
  })
