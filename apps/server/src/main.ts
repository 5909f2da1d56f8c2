#!/usr/bin/env node
/**
 * Starts the gateway: reads the environment, builds the server layer, runs until SIGTERM or
 * SIGINT, then finishes in-flight requests (streams included) before exiting.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Exit, Layer, Runtime } from "effect"
import * as Server from "./Server.ts"
import { ServerConfig } from "./ServerConfig.ts"

/** A shutdown asked for by a signal is a clean exit, not a failure. */
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

Layer.launch(Layer.unwrap(Effect.map(ServerConfig, Server.layer))).pipe(NodeRuntime.runMain({ teardown }))
