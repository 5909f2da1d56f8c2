/**
 * Where a caller may make the gateway connect (extensions.md, "Trusted hosts"). A URL a caller
 * supplies (`custom_host`, a guardrail's webhook or log URL, the `jwt` check's JWKS URL, a service
 * account's `token_uri`) may reach a public address, or a host, address or CIDR block that
 * `GATEWAY_TRUSTED_HOSTS` lists; never a private, carrier-grade NAT, loopback, link-local (cloud
 * metadata), unique-local, unspecified, multicast or otherwise reserved one. An IPv6 address that
 * stands for an IPv4 one (mapped, NAT64, 6to4) is judged as that IPv4 address.
 *
 * The policy itself is pure. {@link check} resolves a URL's host early, so a refusal names the
 * field; {@link lookup} judges the addresses a socket is about to connect to, so a name that
 * resolves elsewhere the second time (DNS rebinding) still cannot pass. Hosts the operator sets
 * and the providers' built-in URLs never come here.
 *
 * @example
 * import { TrustedHosts } from "@switchyard/core"
 * import { Result } from "effect"
 * const hosts = Result.getOrThrow(TrustedHosts.make("localhost,10.1.0.0/16"))
 * hosts.refusal("10.1.2.3") // undefined: listed
 * hosts.refusal("169.254.169.254") // "link-local"
 * const refused = TrustedHosts.check(hosts, "http://192.168.1.5:8000", "config.custom_host") // fails with a 400
 */
import { Context, Data, Effect, Layer, Result } from "effect"
import { lookup as systemLookup, type LookupAddress, type LookupOptions } from "node:dns"
import type { LookupFunction } from "node:net"
import { InvalidRequest } from "./GatewayError.ts"
import * as IpAddress from "./internal/IpAddress.ts"

/** The environment variable the server reads the list from. */
export const ENV = "GATEWAY_TRUSTED_HOSTS"

/** Models running next to the gateway work out of the box; set the variable empty to refuse them. */
export const DEFAULT_LIST = "localhost,127.0.0.1,::1"

/** Why an address is not public: `loopback`, `private`, `link-local`, … */
export type Range = IpAddress.Range

/** Every address a name resolves to, as `dns.lookup` with `all: true` answers. */
export type Resolver = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: ReadonlyArray<LookupAddress>) => void
) => void

/** The system's resolver, the one sockets use by default. */
export const systemResolver: Resolver = (hostname, options, callback) =>
  systemLookup(hostname, { ...options, all: true }, callback)

export interface TrustedHosts {
  /** Whether the list names this host itself (lower case, no trailing dot, IPv6 without brackets). */
  readonly trustsName: (host: string) => boolean
  /** The range that keeps the gateway from connecting to `address`; undefined when it may. */
  readonly refusal: (address: string) => Range | undefined
  /** How names are resolved; tests inject their own. */
  readonly resolve: Resolver
}

/** A `GATEWAY_TRUSTED_HOSTS` entry that is not a host name, an IP address or a CIDR block. */
export class InvalidTrustedHosts extends Data.TaggedError("InvalidTrustedHosts")<{ readonly message: string }> {}

/** A connection refused because of where it would go; sockets fail with it, calls map it to a 400. */
export class UntrustedAddress extends Data.TaggedError("UntrustedAddress")<{
  readonly host: string
  readonly address: string
  readonly range: Range
}> {
  override get message(): string {
    return this.host === this.address
      ? `${this.address} is a ${this.range} address`
      : `${this.host} resolves to ${this.address}, a ${this.range} address`
  }
}

const NAME = /^(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/

/** Lower case, without a trailing dot or IPv6 brackets: how hosts are compared. */
export const normalizeHost = (host: string): string => {
  const lower = host.toLowerCase().replace(/\.$/, "")
  return lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower
}

type Entry =
  | { readonly _tag: "Name"; readonly name: string }
  | { readonly _tag: "Block"; readonly cidr: IpAddress.Cidr }

const parseEntry = (entry: string): Result.Result<Entry, InvalidTrustedHosts> => {
  const cidr = IpAddress.parseCidr(entry)
  if (cidr !== undefined) return Result.succeed({ _tag: "Block", cidr })
  const name = normalizeHost(entry)
  // a last label of digits would make URLs read the name as an IPv4 address
  return NAME.test(name) && !/(?:^|\.)\d+$/.test(name)
    ? Result.succeed({ _tag: "Name", name })
    : Result.fail(
      new InvalidTrustedHosts({
        message: `${ENV}: "${entry}" is neither a host name, an IP address nor a CIDR block (10.0.0.0/8, fd00::/8)`
      })
    )
}

/**
 * The policy for a comma-separated list of host names, IP addresses and CIDR blocks. A listed name
 * trusts that name whatever it resolves to; a listed address or block trusts every address in it.
 */
export const make = (
  list: string,
  options?: { readonly resolve?: Resolver | undefined }
): Result.Result<TrustedHosts, InvalidTrustedHosts> => {
  const names = new Set<string>()
  const blocks: Array<IpAddress.Cidr> = []
  for (const raw of list.split(",")) {
    const text = raw.trim()
    if (text === "") continue
    const entry = parseEntry(text)
    if (Result.isFailure(entry)) return Result.fail(entry.failure)
    if (entry.success._tag === "Name") names.add(entry.success.name)
    else blocks.push(entry.success.cidr)
  }
  const listed = (bytes: IpAddress.Bytes): boolean => blocks.some((cidr) => IpAddress.contains(cidr, bytes))
  return Result.succeed({
    trustsName: (host) => names.has(host),
    refusal: (address) => {
      const bytes = IpAddress.parse(address)
      if (bytes === undefined) return "reserved"
      const ipv4 = IpAddress.embeddedIpv4(bytes)
      if (listed(bytes) || (ipv4 !== undefined && listed(ipv4))) return undefined
      return IpAddress.rangeOf(bytes)
    },
    resolve: options?.resolve ?? systemResolver
  })
}

// the default list always parses; trusting nothing is the safe answer if it ever did not
const trustNothing: TrustedHosts = { trustsName: () => false, refusal: () => "reserved", resolve: systemResolver }

/** The policy the gateway applies; without a layer, the default list's. */
export const TrustedHosts = Context.Reference<TrustedHosts>("@switchyard/core/TrustedHosts", {
  defaultValue: () => Result.getOrElse(make(DEFAULT_LIST), () => trustNothing)
})

/** The policy of a `GATEWAY_TRUSTED_HOSTS` value; an entry that does not parse fails start-up. */
export const layer = (list: string, options?: { readonly resolve?: Resolver | undefined }) =>
  Layer.effect(TrustedHosts, Effect.fromResult(make(list, options)))

const refusalOf = (hosts: TrustedHosts, host: string, address: string): UntrustedAddress | undefined => {
  const range = hosts.refusal(address)
  return range === undefined ? undefined : new UntrustedAddress({ host, address, range })
}

/**
 * What can be said of a host without resolving it: a listed name passes, an IP address is judged
 * as it is. Undefined for a name, which {@link lookup} judges when it resolves. Sockets skip their
 * lookup for IP addresses, so a connector must ask this first.
 */
export const literalRefusal = (hosts: TrustedHosts, host: string): UntrustedAddress | undefined => {
  const normalized = normalizeHost(host)
  if (hosts.trustsName(normalized) || IpAddress.parse(normalized) === undefined) return undefined
  return refusalOf(hosts, normalized, normalized)
}

/**
 * Wraps a socket connector (undici's `buildConnector({ lookup: TrustedHosts.lookup(hosts) })`) so
 * that an IP address, which no lookup ever sees, is judged before anything is connected.
 */
export const guardConnector = <
  Options extends { readonly hostname: string },
  Callback extends (error: UntrustedAddress, socket: null) => void
>(hosts: TrustedHosts, connect: (options: Options, callback: Callback) => void) =>
(options: Options, callback: Callback): void => {
  const refused = literalRefusal(hosts, options.hostname)
  if (refused !== undefined) return callback(refused, null)
  connect(options, callback)
}

/** The first address that may not be connected to; a name is trusted only if all of its are. */
const firstRefused = (
  hosts: TrustedHosts,
  host: string,
  addresses: ReadonlyArray<LookupAddress>
): UntrustedAddress | undefined => {
  for (const { address } of addresses) {
    const refused = refusalOf(hosts, host, address)
    if (refused !== undefined) return refused
  }
  return undefined
}

/**
 * A `lookup` for `net.connect` / `tls.connect` (and undici's `connect` options): it resolves as
 * usual and fails the connection with {@link UntrustedAddress} before any packet is sent when the
 * name is not listed and resolves to an address that may not be connected to.
 */
export const lookup = (hosts: TrustedHosts): LookupFunction => (hostname, options, callback) =>
  hosts.resolve(hostname, options, (error, addresses) => {
    if (error !== null) return callback(error, "")
    const host = normalizeHost(hostname)
    const refused = hosts.trustsName(host) ? undefined : firstRefused(hosts, host, addresses)
    if (refused !== undefined) return callback(refused, "")
    const [first] = addresses
    if (options.all === true) return callback(null, [...addresses])
    if (first === undefined) {
      return callback(Object.assign(new Error(`${hostname}: no address`), { code: "ENOTFOUND" }), "")
    }
    callback(null, first.address, first.family)
  })

/** The 400 a refused URL answers: the field, what it resolves to, and the rule. */
export const invalidRequest = (field: string, refused: UntrustedAddress): InvalidRequest =>
  new InvalidRequest({
    message: `${field}: ${refused.message}; the gateway calls only public addresses and the hosts ${ENV} lists`,
    param: field
  })

/** The refusal behind a failed connection, wherever the client library wrapped it. */
export const untrustedIn = (error: unknown, depth = 0): UntrustedAddress | undefined => {
  if (error instanceof UntrustedAddress) return error
  if (depth > 4 || !(error instanceof Error)) return undefined
  const inner = error instanceof AggregateError ? [...error.errors, error.cause] : [error.cause]
  for (const candidate of inner) {
    const found = untrustedIn(candidate, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

// RFC 2606 keeps these out of the public DNS: asking about them would only leak a query
const UNDELEGATED = /(?:^|\.)(?:example|invalid|test)$/

/**
 * Refuses an http(s) URL a caller supplied (400 naming `field`) unless its host is listed or
 * resolves only to addresses that may be connected to. A name that does not resolve passes (so
 * does one under `.example`, `.invalid` or `.test`, which is not looked up): it reaches nothing,
 * and the connection's own {@link lookup} judges whatever it resolves to then.
 */
export const check = (hosts: TrustedHosts, url: string, field: string): Effect.Effect<void, InvalidRequest> =>
  Effect.suspend(() => {
    const parsed = URL.parse(url)
    // what is not an http(s) URL reaches nothing over HTTP: the field's own rules refuse it
    if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) return Effect.void
    const host = normalizeHost(parsed.hostname)
    if (hosts.trustsName(host) || UNDELEGATED.test(host)) return Effect.void
    if (IpAddress.parse(host) !== undefined) {
      const refused = refusalOf(hosts, host, host)
      return refused === undefined ? Effect.void : Effect.fail(invalidRequest(field, refused))
    }
    return Effect.callback<void, InvalidRequest>((resume) =>
      hosts.resolve(host, {}, (error, addresses) => {
        const refused = error === null ? firstRefused(hosts, host, addresses) : undefined
        resume(refused === undefined ? Effect.void : Effect.fail(invalidRequest(field, refused)))
      })
    )
  })
