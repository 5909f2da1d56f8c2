#!/usr/bin/env node
/** Runs the default fake OpenAI provider for benchmarks: `node src/cli.ts --port N` (0 = any free port). */
import { parseArgs } from "node:util"
import { start } from "./FakeOpenAI.ts"

const { values } = parseArgs({ options: { port: { type: "string", default: "0" } } })
const port = Number(values.port)
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`--port must be an integer from 0 to 65535, got ${values.port}`)
  process.exit(2)
}

const fake = await start({ port, record: false })
console.log(`listening http://127.0.0.1:${fake.port}`)

const stop = () => {
  fake.close().then(() => process.exit(0), () => process.exit(1))
}
process.once("SIGTERM", stop)
process.once("SIGINT", stop)
