#!/usr/bin/env node
/**
 * Starts the batch worker: reads the environment as the server does, takes batch jobs until
 * SIGTERM or SIGINT. A job it held when it stopped is taken again by any worker once its lock lapses.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Exit, Layer, Runtime } from "effect"
import { Worker } from "./index.ts"

/** A shutdown asked for by a signal is a clean exit, not a failure. */
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

Layer.launch(Worker.layerConfig).pipe(NodeRuntime.runMain({ teardown }))
