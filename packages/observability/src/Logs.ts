/**
 * The one log output of the server and the batch worker (extensions.md, "Running it", logs): one
 * line per event on stdout, `json` or `pretty`, from `GATEWAY_LOG_LEVEL` up. Effect's own logging
 * (`Effect.log…`) is routed here too, so every line has one format. Lines are written in batches: a
 * warning or an error at the end of its event-loop turn, an info or debug line at most 10 ms
 * later; at thousands of requests a second, a write per access line would cost a system call each.
 * An event is formatted when its batch is written, not when it is logged: it must not change after.
 *
 * @example
 * import { Logs } from "@switchyard/observability"
 * import { Effect, Layer } from "effect"
 *
 * // an app's logs as the environment asks (GATEWAY_LOG_FORMAT, GATEWAY_LOG_LEVEL)
 * const logging = Layer.unwrap(Effect.map(Logs.LogsConfig, Logs.Logs.layer))
 */
import { Cause, Config, Context, Effect, Layer, Logger, References } from "effect"
import type { LogLevel } from "effect"
import { format, type Level, type LogEvent, type LogFormat } from "./LogLine.ts"

export interface LogSettings {
  readonly format: LogFormat
  readonly level: Level
}

/** `GATEWAY_LOG_FORMAT` (pretty at a terminal, JSON otherwise) and `GATEWAY_LOG_LEVEL` (default info). */
export const LogsConfig: Config.Config<LogSettings> = Config.all({
  // a person at a terminal reads pretty lines; anything else (a collector, a file) gets JSON
  format: Config.Literals(["json", "pretty"], "GATEWAY_LOG_FORMAT").pipe(
    Config.withDefault(process.stdout.isTTY ? "pretty" : "json")
  ),
  level: Config.Literals(["debug", "info", "warn", "error"], "GATEWAY_LOG_LEVEL").pipe(Config.withDefault("info"))
})

const rank: Readonly<Record<Level, number>> = { debug: 0, info: 1, warn: 2, error: 3 }

const effectLevels: Readonly<Record<Level, LogLevel.LogLevel>> = {
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  error: "Error"
}

export class Logs extends Context.Service<Logs, {
  /** Whether events of `level` are written at all: check before building an expensive one. */
  readonly enabled: (level: Level) => boolean
  /** Queues `event`, read when its batch is written (within 10 ms; at once for a warning or an error). */
  readonly write: (event: LogEvent) => void
}>()("@switchyard/observability/Logs") {
  /**
   * Logs at `settings`, written by `out` (stdout by default), with Effect's loggers replaced by
   * one that writes here. What is still buffered is written when the layer is released.
   */
  static readonly layer = (
    settings: LogSettings,
    out: (text: string) => void = toStdout
  ): Layer.Layer<Logs> => {
    const logs = Layer.effect(
      Logs,
      Effect.gen(function*() {
        const buffer = lineBuffer(out, (event) => format(event, settings.format))
        yield* Effect.addFinalizer(() => Effect.sync(buffer.flush))
        const minimum = rank[settings.level]
        return Logs.of({
          enabled: (level) => rank[level] >= minimum,
          write: (event) => {
            if (rank[event.level] >= minimum) buffer.push(event, rank[event.level] >= rank.warn)
          }
        })
      })
    )
    const effectLogging = Layer.mergeAll(
      Logger.layer([Logs.use((logs) => Effect.succeed(Logger.make((options) => logs.write(eventOf(options)))))]),
      Layer.succeed(References.MinimumLogLevel, effectLevels[settings.level])
    )
    return Layer.provideMerge(effectLogging, logs)
  }
}

/**
 * Lines to stdout. A reader that goes away (a log shipper restarting, `| head`) makes the writes
 * fail with EPIPE, which node would raise as an uncaught error: losing log lines must not stop
 * the gateway, so such failures are dropped.
 */
const toStdout = (text: string): void => {
  if (process.stdout.listenerCount("error") === 0) process.stdout.on("error", () => undefined)
  process.stdout.write(text)
}

/**
 * How long an info or debug line may wait for others to go out with it. Written a batch per
 * event-loop turn, a busy gateway's access lines went out one or two a write, and each write (a
 * system call, on stdout a synchronous one) cost more than the lines in it: ~3 µs a request.
 * Warnings and errors still go out at the end of their turn, with every line before them.
 */
const FLUSH_DELAY_MS = 10

/** Past this many events waiting, they are written at once. */
const FLUSH_EVENTS = 512

/**
 * Events waiting to be written, formatted together as their batch is written. Formatted as each
 * was logged, in the middle of its request's work, the access lines cost the chat path 2-3 % more
 * of its throughput under load than formatted together (ten rounds interleaved with the code
 * before), though a line takes 1.3 µs in a loop of its own: a batch formatted in one go keeps that
 * code out of the request's path.
 */
const lineBuffer = (out: (text: string) => void, lineOf: (event: LogEvent) => string) => {
  let pending: Array<LogEvent> = []
  let timer: ReturnType<typeof setTimeout> | undefined
  let immediate: ReturnType<typeof setImmediate> | undefined
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer)
    if (immediate !== undefined) clearImmediate(immediate)
    timer = undefined
    immediate = undefined
    if (pending.length === 0) return
    const events = pending
    pending = []
    out(`${events.map((event) => formatted(event, lineOf)).join("\n")}\n`)
  }
  return {
    push: (event: LogEvent, urgent: boolean) => {
      pending.push(event)
      if (pending.length >= FLUSH_EVENTS) flush()
      else if (urgent) immediate ??= setImmediate(flush)
      else timer ??= setTimeout(flush, FLUSH_DELAY_MS)
    },
    flush
  }
}

/**
 * An event's line, or one saying why it has none: formatted in a timer, a throw (an invalid date)
 * would be an uncaught error, and would take the batch's other lines with it.
 */
const formatted = (event: LogEvent, lineOf: (event: LogEvent) => string): string => {
  try {
    return lineOf(event)
  } catch (cause) {
    return lineOf({
      time: new Date(),
      level: "error",
      message: "a log event could not be written",
      fields: { reason: cause instanceof Error ? cause.message : String(cause), event_message: event.message }
    })
  }
}

const levelOf = (level: LogLevel.LogLevel): Level =>
  level === "Fatal" || level === "Error" ? "error" : level === "Warn" ? "warn" : level === "Info" ? "info" : "debug"

/** An Effect log event as ours: its message parts, its fiber's annotations and its cause. */
const eventOf = (options: Logger.Options<unknown>): LogEvent => {
  const parts = Array.isArray(options.message) ? options.message : [options.message]
  const message = parts.filter((part) => !Cause.isCause(part)).map(String).join(" ")
  return {
    time: options.date,
    level: levelOf(options.logLevel),
    message,
    fields: options.fiber.getRef(References.CurrentLogAnnotations),
    cause: options.cause.reasons.length > 0 ? Cause.pretty(options.cause) : undefined
  }
}
