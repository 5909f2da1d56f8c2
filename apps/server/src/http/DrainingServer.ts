/**
 * A node:http server whose `close` also closes each keep-alive connection as soon as its last
 * response is done. Node closes only the connections idle at the moment `close` is called, so a
 * connection that finishes a long stream afterwards would hold the shutdown open until the
 * grace period ran out.
 */
import { Server, type ServerOptions } from "node:http"

const DRAIN_INTERVAL_MS = 25

export class DrainingServer extends Server {
  constructor(options: ServerOptions) {
    super(options)
  }

  override close(callback?: (error?: Error) => void): this {
    const drain = setInterval(() => this.closeIdleConnections(), DRAIN_INTERVAL_MS)
    this.once("close", () => clearInterval(drain))
    return super.close(callback)
  }
}
