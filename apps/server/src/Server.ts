/**
 * The whole server as one Layer: the route table over the gateway pipeline, on node:http, with
 * the pooled upstream client. Its type proves nothing is missing.
 */
import { AdminKeyBootstrap } from "@switchyard/auth"
import { ConfigCompiler, Gateway } from "@switchyard/core"
import { Providers, UpstreamClient } from "@switchyard/providers"
import { Console, Layer } from "effect"
import * as NodeEdge from "./http/NodeEdge.ts"
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
  Layer.provide(UpstreamClient.UpstreamClient.layer())
)

export const layer = (config: ServerConfig) =>
  NodeEdge.layer(
    { host: config.host, port: config.port, gracefulShutdownMs: config.shutdownGraceSeconds * 1000 },
    { node: Routes.nodeRoutes({ maxBodyBytes: config.maxBodyBytes }), router: Routes.routerRoutes }
  ).pipe(
    Layer.provide([
      AdminKeyBootstrap.layer({ adminKey: config.adminKey, dataDir: config.dataDir, announce: announceAdminKey }),
      pipelineLayer
    ])
  )
