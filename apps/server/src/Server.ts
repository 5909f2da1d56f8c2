/**
 * The whole server as one Layer: the route table over the gateway pipeline, on node:http, with
 * the pooled upstream client. Its type proves nothing is missing.
 */
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import { AdminKeyBootstrap } from "@switchyard/auth"
import { ConfigCompiler, Gateway } from "@switchyard/core"
import { Providers } from "@switchyard/providers"
import { Console, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { DrainingServer } from "./http/DrainingServer.ts"
import * as Routes from "./Routes.ts"
import type { ServerConfig } from "./ServerConfig.ts"

const announceAdminKey = (key: string) =>
  Console.log(
    `No GATEWAY_ADMIN_KEY was set, so an admin key was created. It is shown this once:\n\n  ${key}\n\n` +
      "Only its hash is kept. Send it as the x-gateway-api-key header."
  )

/** The pipeline every inference route runs: provider adapters over a keep-alive upstream pool. */
export const pipelineLayer = Gateway.Gateway.layer.pipe(
  Layer.provide(ConfigCompiler.ConfigCompiler.layer()),
  Layer.provide(Providers.layer),
  Layer.provide(NodeHttpClient.layerUndici)
)

export const layer = (config: ServerConfig) => {
  const authentication = AdminKeyBootstrap.layer({
    adminKey: config.adminKey,
    dataDir: config.dataDir,
    announce: announceAdminKey
  })
  const listening = Layer.effectDiscard(
    HttpServer.HttpServer.use((server) => Console.log(`Switchyard listening on ${HttpServer.formatAddress(server.address)}`))
  )
  return HttpRouter.serve(Routes.layer({ maxBodyBytes: config.maxBodyBytes }), {
    disableLogger: true,
    disableListenLog: true
  }).pipe(
    Layer.merge(listening),
    Layer.provide(
      NodeHttpServer.layer(() => new DrainingServer({ keepAliveTimeout: 65_000 }), {
        port: config.port,
        host: config.host,
        gracefulShutdownTimeout: `${config.shutdownGraceSeconds} seconds`
      })
    ),
    // built before the server listens: node:http accepts connections as soon as it listens, and
    // a request that arrived before the routes were attached would wait forever
    Layer.provide([authentication, pipelineLayer])
  )
}
