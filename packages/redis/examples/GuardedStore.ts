import { RedisConnection, StoreOutage } from "@switchyard/redis"
import { Context, Effect, Layer } from "effect"
import { Redis } from "effect/persistence"

export class Answers extends Context.Service<Answers, {
  readonly get: (key: string) => Effect.Effect<string | null, Redis.RedisError>
}>()("app/Answers") {}
const unreachable = (error: Redis.RedisError) => RedisConnection.isReply(error.cause) ? undefined : error.cause
const AnswersRedis = Layer.effect(
  Answers,
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    const outage = yield* StoreOutage.make({ store: "answers", whileDown: "lookups miss", ping: redis.send("PING") })
    // null within 150 ms while Redis is down; an error Redis answers with (WRONGTYPE) is passed on
    const get = (key: string) => outage.guard(redis.send<string | null>("GET", key), { fallback: null, unreachable })
    return Answers.of({ get })
  })
)
export const AnswersLive = (url: string) => AnswersRedis.pipe(Layer.provide(RedisConnection.layer({ url })))
