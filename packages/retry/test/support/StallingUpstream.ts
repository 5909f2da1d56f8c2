/**
 * A provider on 127.0.0.1 that takes requests and never finishes answering: it either sends
 * nothing, or a status, headers and half a body. It reports when each request arrived and when
 * the gateway closed the connection.
 */
import { Deferred, Effect } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface StallingUpstream {
  readonly url: string
  /** Completes when the request has reached the provider. */
  readonly arrived: Deferred.Deferred<void>
  /** Completes when the gateway has closed the request's connection. */
  readonly closed: Deferred.Deferred<void>
}

const listen = (server: Server) =>
  Effect.callback<AddressInfo>((resume) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      if (address !== null && typeof address === "object") resume(Effect.succeed(address))
      else resume(Effect.die(new Error("the server has no port")))
    })
  })

/** A stalling provider for the length of the scope. */
export const stallingUpstream = (answer: "nothing" | "half a body") =>
  Effect.gen(function*() {
    const arrived = Deferred.makeUnsafe<void>()
    const closed = Deferred.makeUnsafe<void>()
    const server = createServer((request, response) => {
      request.socket.once("close", () => Deferred.doneUnsafe(closed, Effect.void))
      request.resume()
      request.once("end", () => {
        if (answer === "half a body") {
          response.writeHead(200, { "content-type": "application/json", "content-length": "100" })
          response.write("{\"id\":")
        }
        Deferred.doneUnsafe(arrived, Effect.void)
      })
    })
    const address = yield* Effect.acquireRelease(
      listen(server),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return { url: `http://127.0.0.1:${address.port}/v1/chat/completions`, arrived, closed } satisfies StallingUpstream
  })
