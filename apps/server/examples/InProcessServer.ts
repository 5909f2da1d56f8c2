import { Server, ServerConfig } from "@switchyard/server"
import { ConfigProvider, Effect, Layer } from "effect"

// the gateway server, set up as its environment variables would set it; it serves until interrupted
const serve = (env: Record<string, string>) =>
  Layer.launch(Layer.unwrap(Effect.map(ServerConfig.ServerConfig, Server.layer))).pipe(
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
  )
// Effect.runFork(serve({ PORT: "8787", GATEWAY_DATA_DIR: "./.switchyard", GATEWAY_ADMIN_KEY: "sy-admin-123" }))
// README end

/** The example, typed for the test. */
export const serveWith: (env: Record<string, string>) => Effect.Effect<never, unknown> = serve
