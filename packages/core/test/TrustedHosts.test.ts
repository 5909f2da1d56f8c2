import { assert, describe, it } from "@effect/vitest"
import { GatewayError, TrustedHosts } from "@switchyard/core"
import { Effect, Exit, Layer, Result } from "effect"
import fc from "fast-check"
import type { LookupAddress } from "node:dns"
import { isIP } from "node:net"

const SEED = 20_261_121

/** A resolver answering from a table, and counting its calls; no query leaves the process. */
const tableResolver = (table: Readonly<Record<string, ReadonlyArray<string>>>): TrustedHosts.Resolver =>
(
  hostname,
  _options,
  callback
) => {
  const addresses = table[hostname]
  if (addresses === undefined) {
    return callback(Object.assign(new Error(`${hostname} not found`), { code: "ENOTFOUND" }), [])
  }
  callback(null, addresses.map((address) => ({ address, family: isIP(address) })))
}

const policy = (list: string, table: Readonly<Record<string, ReadonlyArray<string>>> = {}) =>
  Result.getOrThrow(TrustedHosts.make(list, { resolve: tableResolver(table) }))

const none = policy("")
const defaults = policy(TrustedHosts.DEFAULT_LIST)

const refusedWith = (effect: Effect.Effect<void, GatewayError.InvalidRequest>) =>
  Effect.map(Effect.flip(effect), (error) => {
    const http = GatewayError.toHttp(error)
    assert.strictEqual(http.status, 400)
    assert.strictEqual(http.body.error.type, "invalid_request_error")
    return { message: http.body.error.message, param: http.body.error.param }
  })

describe("the ranges a caller may not reach", () => {
  const cases: ReadonlyArray<readonly [string, TrustedHosts.Range]> = [
    ["0.0.0.0", "unspecified"],
    ["0.255.255.255", "unspecified"],
    ["10.0.0.0", "private"],
    ["10.255.255.255", "private"],
    ["100.64.0.0", "carrier-grade NAT"],
    ["100.127.255.255", "carrier-grade NAT"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.169.254", "link-local"],
    ["169.254.0.1", "link-local"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.192", "reserved"],
    ["192.0.2.10", "documentation"],
    ["192.88.99.1", "reserved"],
    ["192.168.0.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.254", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["fe80::1", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["fc00::1", "unique-local"],
    ["fd00:ec2::254", "unique-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["64:ff9b:1::1", "private"],
    ["100::1", "reserved"],
    ["::1.2.3.4", "reserved"],
    ["4000::1", "reserved"],
    ["2001::1", "reserved"],
    ["2001:db8::1", "documentation"],
    ["3fff::1", "documentation"]
  ]
  for (const [address, range] of cases) {
    it(`${address} is ${range}`, () => {
      assert.strictEqual(none.refusal(address), range)
    })
  }

  const publicOnes = [
    "1.1.1.1",
    "8.8.8.8",
    "9.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.0",
    "169.253.255.255",
    "169.255.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.167.255.255",
    "192.169.0.0",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2a00:1450:4001::200e",
    "2001:200::1",
    "2001:4860:4860::8888"
  ]
  for (const address of publicOnes) {
    it(`${address} is public`, () => {
      assert.isUndefined(none.refusal(address))
    })
  }

  it("judges an IPv6 address that stands for an IPv4 one as that IPv4 address", () => {
    fc.assert(
      fc.property(fc.ipV4(), (ipv4) => {
        const [a = 0, b = 0, c = 0, d = 0] = ipv4.split(".").map(Number)
        const hex = (high: number, low: number) => ((high << 8) | low).toString(16)
        const expected = none.refusal(ipv4)
        assert.strictEqual(none.refusal(`::ffff:${ipv4}`), expected)
        assert.strictEqual(none.refusal(`::ffff:${hex(a, b)}:${hex(c, d)}`), expected)
        assert.strictEqual(none.refusal(`64:ff9b::${hex(a, b)}:${hex(c, d)}`), expected)
        assert.strictEqual(none.refusal(`2002:${hex(a, b)}:${hex(c, d)}::1`), expected)
      }),
      { seed: SEED, numRuns: 2000 }
    )
  })

  it("refuses whatever is not an IP address", () => {
    for (const text of ["", "localhost", "1.2.3", "256.0.0.1", "01.2.3.4", "1:2:3:4:5:6:7:8:9", ":::", "1::2::3"]) {
      assert.strictEqual(none.refusal(text), "reserved", text)
    }
  })

  it("reads every address the way Node does", () => {
    const address = fc.oneof(fc.ipV4(), fc.ipV6(), fc.string({ maxLength: 20 }))
    fc.assert(
      fc.property(address, (text) => {
        // a string Node does not call an address is refused; one it does can be listed and trusted
        if (isIP(text) === 0) return assert.strictEqual(none.refusal(text), "reserved")
        assert.isUndefined(policy(text).refusal(text))
        if (isIP(text) === 6) {
          assert.strictEqual(none.refusal(text), none.refusal(new URL(`http://[${text}]`).hostname.slice(1, -1)))
        }
      }),
      { seed: SEED, numRuns: 2000 }
    )
  })

  it("reads an IPv6 address the same in every notation", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }), (hextets) => {
        const full = hextets.map((h) => h.toString(16).padStart(4, "0")).join(":")
        const canonical = new URL(`http://[${full}]`).hostname.slice(1, -1)
        assert.strictEqual(policy("").refusal(canonical), policy("").refusal(full))
        assert.strictEqual(policy(full).refusal(canonical), undefined)
      }),
      { seed: SEED, numRuns: 1000 }
    )
  })
})

describe("TrustedHosts.make", () => {
  it("the default list trusts localhost by name and 127.0.0.1 and ::1 as addresses, nothing else", () => {
    assert.isTrue(defaults.trustsName("localhost"))
    assert.isUndefined(defaults.refusal("127.0.0.1"))
    assert.isUndefined(defaults.refusal("::1"))
    assert.isUndefined(defaults.refusal("::ffff:127.0.0.1"))
    assert.strictEqual(defaults.refusal("127.0.0.2"), "loopback")
    assert.strictEqual(defaults.refusal("10.0.0.1"), "private")
    assert.strictEqual(defaults.refusal("169.254.169.254"), "link-local")
  })

  it("an empty list trusts no name and no address, loopback included", () => {
    for (const list of ["", " ", ",", " , ,"]) {
      const hosts = policy(list)
      assert.isFalse(hosts.trustsName("localhost"))
      assert.strictEqual(hosts.refusal("127.0.0.1"), "loopback")
      assert.strictEqual(hosts.refusal("::1"), "loopback")
      assert.isUndefined(hosts.refusal("8.8.8.8"))
    }
  })

  it("a listed CIDR block trusts every address in it, and only those", () => {
    const block = fc.record({ base: fc.integer({ min: 0, max: 0xffffff }), prefix: fc.integer({ min: 8, max: 32 }) })
    fc.assert(
      fc.property(block, fc.integer({ min: 0, max: 0xffffff }), ({ base, prefix }, other) => {
        const toIp = (n: number) => `10.${(n >> 16) & 0xff}.${(n >> 8) & 0xff}.${n & 0xff}`
        const hosts = policy(`${toIp(base)}/${prefix}`)
        const mask = prefix === 8 ? 0 : (0xffffff << (32 - prefix)) & 0xffffff
        const inside = (other & mask) === (base & mask)
        assert.strictEqual(hosts.refusal(toIp(other)), inside ? undefined : "private")
        assert.strictEqual(hosts.refusal(`::ffff:${toIp(other)}`), inside ? undefined : "private")
      }),
      { seed: SEED, numRuns: 2000 }
    )
  })

  it("lists IPv6 blocks and addresses written in brackets", () => {
    const hosts = policy("fd00:1::/32,[fe80::5]")
    assert.isUndefined(hosts.refusal("fd00:1:ffff::9"))
    assert.strictEqual(hosts.refusal("fd00:2::1"), "unique-local")
    assert.isUndefined(hosts.refusal("fe80::5"))
    assert.strictEqual(hosts.refusal("fe80::6"), "link-local")
  })

  it("compares names in lower case and without a trailing dot", () => {
    const hosts = policy(" Models.Internal. ,gpu-box")
    assert.isTrue(hosts.trustsName("models.internal"))
    assert.isTrue(hosts.trustsName("gpu-box"))
    assert.isFalse(hosts.trustsName("other.internal"))
  })

  it("refuses an entry that is neither a name, an address nor a block, saying which", () => {
    for (const entry of ["bad entry", "10.0.0.0/33", "::1/129", "1.2.3", "*.internal", "http://x", "10.0.0.0/8/1"]) {
      const result = TrustedHosts.make(`localhost,${entry}`)
      if (Result.isSuccess(result)) return assert.fail(`"${entry}" was accepted`)
      assert.include(result.failure.message, `GATEWAY_TRUSTED_HOSTS: "${entry}"`)
    }
  })
})

describe("TrustedHosts.check", () => {
  const field = "config.targets[1].custom_host"

  it.effect("refuses a loopback or private IP address with a 400 naming the field and the rule", () =>
    Effect.gen(function*() {
      for (
        const url of [
          "http://127.0.0.1:8080/v1",
          "http://[::1]/",
          "https://10.0.0.1",
          "http://0x7f.1/",
          "http://2130706433/"
        ]
      ) {
        const { message, param } = yield* refusedWith(TrustedHosts.check(none, url, field))
        assert.strictEqual(param, field)
        assert.match(
          message,
          /^config\.targets\[1\]\.custom_host: 127\.0\.0\.1 is a loopback address|^config\.targets\[1\]\.custom_host: (::1|10\.0\.0\.1) is a/
        )
        assert.include(message, "GATEWAY_TRUSTED_HOSTS")
      }
    }))

  it.effect("refuses cloud metadata, also written as an IPv4-mapped IPv6 address", () =>
    Effect.gen(function*() {
      const plain = yield* refusedWith(TrustedHosts.check(defaults, "http://169.254.169.254/latest", "webhookURL"))
      assert.include(plain.message, "169.254.169.254 is a link-local address")
      const mapped = yield* refusedWith(TrustedHosts.check(defaults, "http://[::ffff:169.254.169.254]/", "webhookURL"))
      assert.include(mapped.message, "a link-local address")
    }))

  it.effect("refuses a name when any address it resolves to may not be reached", () =>
    Effect.gen(function*() {
      const hosts = policy("", { "split.example.com": ["93.184.216.34", "10.1.2.3"] })
      const { message } = yield* refusedWith(TrustedHosts.check(hosts, "https://split.example.com/hook", "webhookURL"))
      assert.include(message, "webhookURL: split.example.com resolves to 10.1.2.3, a private address")
    }))

  it.effect("refuses localhost under an empty list, and lets it pass under the default one", () =>
    Effect.gen(function*() {
      const table = { localhost: ["127.0.0.1", "::1"] }
      const refused = yield* refusedWith(
        TrustedHosts.check(policy("", table), "http://localhost:11434", "x-gateway-custom-host")
      )
      assert.strictEqual(refused.param, "x-gateway-custom-host")
      assert.include(refused.message, "localhost resolves to 127.0.0.1, a loopback address")
      yield* TrustedHosts.check(policy(TrustedHosts.DEFAULT_LIST, table), "http://localhost:11434", "custom_host")
    }))

  it.effect("lets a listed name pass whatever it resolves to, without resolving it", () =>
    Effect.gen(function*() {
      yield* TrustedHosts.check(policy("models.internal"), "http://models.internal:8000", "custom_host")
      yield* TrustedHosts.check(policy("models.internal"), "http://MODELS.internal.:8000", "custom_host")
    }))

  it.effect("lets a name pass that resolves into a listed block", () =>
    Effect.gen(function*() {
      const hosts = policy("10.20.0.0/16", {
        "gpu.corp.example.com": ["10.20.3.4"],
        "other.corp.example.com": ["10.21.0.1"]
      })
      yield* TrustedHosts.check(hosts, "http://gpu.corp.example.com:8000", "custom_host")
      const { message } = yield* refusedWith(TrustedHosts.check(hosts, "http://other.corp.example.com", "custom_host"))
      assert.include(message, "10.21.0.1, a private address")
    }))

  it.effect("lets a public name pass, and one that does not resolve (it reaches nothing)", () =>
    Effect.gen(function*() {
      const hosts = policy("", { "api.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"] })
      yield* TrustedHosts.check(hosts, "https://api.example.com/v1", "custom_host")
      yield* TrustedHosts.check(hosts, "https://missing.example.com/v1", "custom_host")
    }))

  it.effect("does not look up names the public DNS never holds; the connection's lookup judges them", () =>
    Effect.gen(function*() {
      let asked = 0
      const hosts = Result.getOrThrow(TrustedHosts.make("", {
        resolve: (_hostname, _options, callback) => {
          asked += 1
          callback(null, [{ address: "10.0.0.1", family: 4 }])
        }
      }))
      for (const url of ["https://llm.internal.example/v1", "http://hook.invalid", "http://box.test:8080"]) {
        yield* TrustedHosts.check(hosts, url, "custom_host")
      }
      assert.strictEqual(asked, 0)
      const refused = yield* Effect.promise(() =>
        new Promise<Error | null>((resolve) => TrustedHosts.lookup(hosts)("box.test", {}, (error) => resolve(error)))
      )
      assert.strictEqual(TrustedHosts.untrustedIn(refused)?.range, "private")
    }))

  it.effect("leaves what is not an http or https URL to the field's own rules: it reaches nothing over HTTP", () =>
    Effect.gen(function*() {
      for (const url of ["file:///etc/passwd", "ftp://127.0.0.1", "not a url", ""]) {
        yield* TrustedHosts.check(none, url, "custom_host")
      }
    }))
})

describe("TrustedHosts.lookup, the check on the address actually connected to", () => {
  /** The first resolution answers a public address, every later one loopback: DNS rebinding. */
  const rebinding = (): TrustedHosts.Resolver => {
    let calls = 0
    return (_hostname, _options, callback) => {
      calls += 1
      callback(null, [{ address: calls === 1 ? "93.184.216.34" : "127.0.0.1", family: 4 }])
    }
  }

  const lookupAll = (hosts: TrustedHosts.TrustedHosts, hostname: string) =>
    new Promise<{ error: Error | null; addresses: ReadonlyArray<LookupAddress> | string }>((resolve) =>
      TrustedHosts.lookup(hosts)(hostname, { all: true }, (error, addresses) => resolve({ error, addresses }))
    )

  it.effect("refuses a rebound name at connect time although the early check passed", () =>
    Effect.gen(function*() {
      const hosts = Result.getOrThrow(TrustedHosts.make("", { resolve: rebinding() }))
      yield* TrustedHosts.check(hosts, "http://rebind.example.net", "custom_host")
      const { error } = yield* Effect.promise(() => lookupAll(hosts, "rebind.example.net"))
      const refused = TrustedHosts.untrustedIn(error)
      if (refused === undefined) return assert.fail("the connection was not refused")
      assert.deepStrictEqual([refused.host, refused.address, refused.range], [
        "rebind.example.net",
        "127.0.0.1",
        "loopback"
      ])
      assert.strictEqual(
        TrustedHosts.invalidRequest("custom_host", refused).message,
        "custom_host: rebind.example.net resolves to 127.0.0.1, a loopback address; the gateway calls only public addresses and the hosts GATEWAY_TRUSTED_HOSTS lists"
      )
    }))

  it("answers like dns.lookup when the addresses may be reached", async () => {
    const hosts = policy("127.0.0.1", { "fake.example.net": ["127.0.0.1"] })
    assert.deepStrictEqual(await lookupAll(hosts, "fake.example.net"), {
      error: null,
      addresses: [{ address: "127.0.0.1", family: 4 }]
    })
    const one = await new Promise<ReadonlyArray<unknown>>((resolve) =>
      TrustedHosts.lookup(hosts)("fake.example.net", {}, (...args) => resolve(args))
    )
    assert.deepStrictEqual(one, [null, "127.0.0.1", 4])
  })

  it("passes a listed name through, and a resolver's own error on", async () => {
    const hosts = policy("models.internal", { "models.internal": ["10.0.0.7"] })
    assert.deepStrictEqual((await lookupAll(hosts, "models.internal")).addresses, [{ address: "10.0.0.7", family: 4 }])
    const missing = await lookupAll(hosts, "missing.example.com")
    assert.include(missing.error?.message, "not found")
    assert.isUndefined(TrustedHosts.untrustedIn(missing.error))
  })
})

describe("TrustedHosts.literalRefusal", () => {
  it("judges IP addresses as written and leaves names to the lookup", () => {
    assert.strictEqual(TrustedHosts.literalRefusal(none, "127.0.0.1")?.range, "loopback")
    assert.strictEqual(TrustedHosts.literalRefusal(none, "[::1]")?.range, "loopback")
    assert.isUndefined(TrustedHosts.literalRefusal(none, "localhost"))
    assert.isUndefined(TrustedHosts.literalRefusal(none, "8.8.8.8"))
    assert.isUndefined(TrustedHosts.literalRefusal(defaults, "127.0.0.1"))
  })

  it("finds a refusal inside the errors a client library wraps it in", () => {
    const refused = new TrustedHosts.UntrustedAddress({ host: "a.test", address: "10.0.0.1", range: "private" })
    assert.strictEqual(TrustedHosts.untrustedIn(new Error("connect failed", { cause: refused })), refused)
    assert.strictEqual(TrustedHosts.untrustedIn(new AggregateError([new Error("x"), refused])), refused)
    assert.isUndefined(TrustedHosts.untrustedIn(new Error("ECONNREFUSED")))
  })
})

describe("the TrustedHosts reference", () => {
  const current = Effect.gen(function*() {
    return yield* TrustedHosts.TrustedHosts
  })

  it.effect("is the default list's policy without a layer", () =>
    Effect.gen(function*() {
      const hosts = yield* TrustedHosts.TrustedHosts
      assert.isTrue(hosts.trustsName("localhost"))
      assert.strictEqual(hosts.refusal("10.0.0.1"), "private")
    }))

  it.effect("is the given list's policy under its layer", () =>
    Effect.gen(function*() {
      const hosts = yield* TrustedHosts.TrustedHosts
      assert.isFalse(hosts.trustsName("localhost"))
      assert.strictEqual(hosts.refusal("127.0.0.1"), "loopback")
    }).pipe(Effect.provide(TrustedHosts.layer(""))))

  it.effect("fails to build on a list that does not parse", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.provide(current, TrustedHosts.layer("no such/thing")))
      assert.isTrue(Exit.isFailure(exit))
    }))

  it.effect("a Layer of it replaces the default for everything built under it", () =>
    Effect.gen(function*() {
      const built = yield* Layer.build(TrustedHosts.layer("10.0.0.0/8"))
      const hosts = yield* Effect.provide(current, built)
      assert.isUndefined(hosts.refusal("10.9.9.9"))
    }).pipe(Effect.scoped))
})
