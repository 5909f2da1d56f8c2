import { createServer } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"
import type { Child } from "./ChildProcessGroup.ts"

/** A port free on 127.0.0.1 right now (for servers that cannot report the port they picked). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => port === 0 ? reject(new Error("no free port")) : resolve(port))
    })
  })

/** Polls `url` until it answers `status`; fails early if `child` exits. */
export const waitForStatus = async (url: string, status: number, child: Child, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(
        `${child.name} exited (${child.process.exitCode ?? child.process.signalCode})\n${child.outputTail()}`
      )
    }
    const answered = await fetch(url, { signal: AbortSignal.timeout(1_000) }).then((response) => {
      void response.body?.cancel()
      return response.status
    }, () => null)
    if (answered === status) return
    await sleep(100)
  }
  throw new Error(`${child.name} did not answer ${status} on ${url} within ${timeoutMs} ms\n${child.outputTail()}`)
}
