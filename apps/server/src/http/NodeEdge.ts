/**
 * The server's transport: one node:http server. The inference routes, the hot path, are served
 * by handlers that read and write node's request and response directly and run the Effect
 * pipeline in a fiber; every other route goes through Effect's HttpRouter. Measured: the
 * HttpRouter path costs about a third of the throughput of a bare node:http server (see the
 * README's benchmark), which the hot path cannot afford.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { RequestContext } from "@switchyard/core"
import { GatewayMetrics, Logs } from "@switchyard/observability"
import { RequestLog } from "@switchyard/request-log"
import { Context, Effect, Fiber, Layer, Scope, Tracer } from "effect"
import { HttpRouter } from "effect/http"
import type { IncomingMessage, ServerResponse } from "node:http"
import * as AccessLine from "./AccessLine.ts"
import * as ClientError from "./ClientError.ts"
import { DrainingServer } from "./DrainingServer.ts"
import * as RequestMetrics from "./RequestMetrics.ts"
import * as RequestRecord from "./RequestRecord.ts"
import * as RequestSpans from "./RequestSpans.ts"

/**
 * A hot-path handler: answers on `response` itself, never fails, and notes on `access` what the
 * request's access line should say.
 */
export type NodeHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  access: AccessLine.Details
) => Effect.Effect<void>

/** Hot-path handlers by `METHOD /path`. */
export type NodeRoutes = ReadonlyMap<string, NodeHandler>

export interface NodeEdgeOptions {
  readonly host: string
  readonly port: number
  readonly gracefulShutdownMs: number
  /** A request's headers must arrive within this time, else 408 and the connection is closed. */
  readonly headersTimeoutMs: number
  /** A request's body must arrive within this time once its headers have (the routes enforce it). */
  readonly bodyTimeoutMs: number
}

/** How long interrupted handlers may take to write their last words at shutdown. */
const INTERRUPT_GRACE_MS = 1_000

/**
 * The request's trace id, given by the caller or made here, written back into its headers so
 * that both paths, their answers and the access line use this one.
 */
const assignTraceId = (request: IncomingMessage): string => {
  const given = request.headers[RequestContext.Headers.traceId]
  if (typeof given === "string" && given !== "") return given
  const traceId = RequestContext.generateTraceId()
  request.headers[RequestContext.Headers.traceId] = traceId
  return traceId
}

const routeKey = (request: IncomingMessage): string => {
  const url = request.url ?? "/"
  const query = url.indexOf("?")
  return `${request.method} ${query === -1 ? url : url.slice(0, query)}`
}

export const layer = <EF, RF, A, EA, RA>(
  options: NodeEdgeOptions,
  routes: {
    readonly node: Effect.Effect<NodeRoutes, EF, RF>
    readonly router: Layer.Layer<A, EA, RA>
    /**
     * The route a request took, as its pattern (`GET /v1/configs/:id`), for the metrics: paths
     * with ids in them would make a series per object.
     */
    readonly patternOf: (method: string, path: string) => string
  }
) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const scope = yield* Effect.scope
    const context = yield* Effect.context<never>()
    const run = Effect.runForkWith(context)
    const logs = yield* Logs.Logs
    const metrics = yield* GatewayMetrics.GatewayMetrics
    const requestLog = yield* RequestLog.RequestLog
    const nodeRoutes = yield* routes.node
    const spans = yield* RequestSpans.make
    const requestScope = yield* Scope.fork(scope, "parallel")
    const routerApp = yield* HttpRouter.toHttpEffect(routes.router)
    const routerHandler = yield* NodeHttpServer.makeHandler(routerApp, { scope: requestScope })
    const inFlight = new Set<Fiber.Fiber<void>>()
    const server = new DrainingServer({
      keepAliveTimeout: 65_000,
      headersTimeout: options.headersTimeoutMs,
      // node's own backstop for the whole request; the routes time the body more precisely
      requestTimeout: options.headersTimeoutMs + options.bodyTimeoutMs + 1_000,
      // node checks those timeouts this often; its default (30 s) would double a 30 s limit
      connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs)
    })
    server.on("clientError", ClientError.answer)
    server.on("request", (request: IncomingMessage, response: ServerResponse) => {
      const started = performance.now()
      const access: AccessLine.Details = { traceId: assignTraceId(request) }
      // the routes keep bodies for the request log only when it keeps them
      if (requestLog.bodies) access.bodies = {}
      const route = routeKey(request)
      // a hot-path route has no parameters: its key is its pattern
      const ended = (pattern: string) => {
        logs.write(AccessLine.event(request, response, access, started))
        RequestMetrics.record(metrics, pattern, AccessLine.statusOf(response), access, started, performance.now())
        RequestRecord.record(requestLog, metrics, pattern, AccessLine.statusOf(response), access, started)
      }
      const handler = nodeRoutes.get(route)
      if (handler === undefined) {
        response.on(
          "close",
          () => ended(routes.patternOf(request.method ?? "GET", route.slice(route.indexOf(" ") + 1)))
        )
        return routerHandler(request, response)
      }
      // with tracing on, the request's span is the parent of the pipeline's: in the fiber's context
      // from its start, rather than provided around the handler (a context changed and restored)
      const span = spans?.start(request, route)
      const handled = handler(request, response, access)
      const fiber = span === undefined
        ? run(handled)
        : Effect.runForkWith(Context.add(context, Tracer.ParentSpan, span))(handled)
      inFlight.add(fiber)
      fiber.addObserver(() => inFlight.delete(fiber))
      response.on("close", () => {
        // the client went away before the answer was complete: stop the upstream call too
        if (!response.writableEnded) fiber.interruptUnsafe()
        ended(route)
        if (span !== undefined) spans?.end(span, route, AccessLine.statusOf(response), access)
      })
    })
    yield* listen(server, options)
    yield* Effect.logInfo(`Switchyard listening on http://${options.host}:${addressPort(server)}`)
    yield* Effect.addFinalizer(() =>
      close(server).pipe(
        Effect.timeoutOrElse({ duration: options.gracefulShutdownMs, orElse: () => Effect.void }),
        // what is still running is cut, and ends with an error event rather than silently
        Effect.andThen(Effect.suspend(() => Fiber.interruptAll([...inFlight]))),
        Effect.timeoutOrElse({ duration: options.gracefulShutdownMs + INTERRUPT_GRACE_MS, orElse: () => Effect.void }),
        Effect.andThen(Effect.sync(() => server.closeAllConnections()))
      )
    )
  }))

const listen = (server: DrainingServer, options: NodeEdgeOptions) =>
  Effect.callback<void, Error>((resume) => {
    const onError = (error: Error) => resume(Effect.fail(error))
    server.once("error", onError)
    server.listen(options.port, options.host, () => {
      server.off("error", onError)
      resume(Effect.void)
    })
  })

/** Stops accepting connections and resolves once the open ones have finished. */
const close = (server: DrainingServer) =>
  Effect.callback<void>((resume) => {
    if (!server.listening) return resume(Effect.void)
    server.close(() => resume(Effect.void))
  })

const addressPort = (server: DrainingServer): number => {
  const address = server.address()
  return typeof address === "object" && address !== null ? address.port : 0
}
