import { RedisServer } from "@switchyard/fake-providers"

export const outage = async () => {
  const redis = await RedisServer.start() // or start(port); resolves once it accepts connections
  const url = redis.url // redis://127.0.0.1:PORT
  await redis.kill() // SIGKILL, resolves once it exited: clients see the connection refused
  await redis.restart() // the same port again
  redis.pause() // SIGSTOP: connections stay open, nothing answers; resume() is SIGCONT
  redis.resume()
  const nobody = await RedisServer.unusedPort() // a free port with nothing listening, e.g. to start later
  await redis.kill()
  return { url, port: redis.port, nobody }
}
