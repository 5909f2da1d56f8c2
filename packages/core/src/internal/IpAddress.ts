/**
 * IP addresses as bytes (4 for IPv4, 16 for IPv6), CIDR blocks over them, and the special-purpose
 * ranges of the IANA registries: everything a socket may reach that is not the public internet.
 */

export type Bytes = Uint8Array

export interface Cidr {
  readonly bytes: Bytes
  readonly prefix: number
}

const IPV4_PART = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/
const HEXTET = /^[0-9a-f]{1,4}$/i

/** Dotted decimal, four parts, no leading zeros: the only form URLs and resolvers hand out. */
const parseIpv4 = (text: string): Bytes | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4 || !parts.every((part) => IPV4_PART.test(part))) return undefined
  return Uint8Array.from(parts, Number)
}

const hextets = (text: string): Array<number> | undefined => {
  if (text === "") return []
  const parts = text.split(":")
  return parts.every((part) => HEXTET.test(part)) ? parts.map((part) => Number.parseInt(part, 16)) : undefined
}

/** RFC 4291 text: hextets, at most one `::`, optionally a dotted IPv4 tail; a `%zone` is ignored. */
const parseIpv6 = (text: string): Bytes | undefined => {
  let rest = text.replace(/%.*$/, "")
  let tail: Array<number> = []
  const lastColon = rest.lastIndexOf(":")
  if (rest.includes(".")) {
    const ipv4 = parseIpv4(rest.slice(lastColon + 1))
    if (ipv4 === undefined || lastColon < 0) return undefined
    tail = [(ipv4[0] ?? 0) << 8 | (ipv4[1] ?? 0), (ipv4[2] ?? 0) << 8 | (ipv4[3] ?? 0)]
    // keep a trailing "::" intact; otherwise drop the separator before the IPv4 part
    rest = rest.endsWith("::", lastColon + 1) ? rest.slice(0, lastColon + 1) : rest.slice(0, lastColon)
  }
  const halves = rest.split("::")
  if (halves.length > 2) return undefined
  const head = hextets(halves[0] ?? "")
  const back = halves.length === 2 ? hextets(halves[1] ?? "") : []
  if (head === undefined || back === undefined) return undefined
  const known = head.length + back.length + tail.length
  if (halves.length === 1 ? known !== 8 : known > 7) return undefined
  const all = [...head, ...Array<number>(8 - known).fill(0), ...back, ...tail]
  const bytes = new Uint8Array(16)
  all.forEach((hextet, index) => {
    bytes[index * 2] = hextet >> 8
    bytes[index * 2 + 1] = hextet & 0xff
  })
  return bytes
}

/** The bytes of an IPv4 or IPv6 address (IPv6 may be written in brackets), or undefined. */
export const parse = (text: string): Bytes | undefined => {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text
  return bare.includes(":") ? parseIpv6(bare) : parseIpv4(bare)
}

/** `address/prefix`, or a single address as a block of one. */
export const parseCidr = (text: string): Cidr | undefined => {
  const slash = text.indexOf("/")
  const bytes = parse(slash < 0 ? text : text.slice(0, slash))
  if (bytes === undefined) return undefined
  if (slash < 0) return { bytes, prefix: bytes.length * 8 }
  const prefixText = text.slice(slash + 1)
  const prefix = Number(prefixText)
  return /^\d{1,3}$/.test(prefixText) && prefix <= bytes.length * 8 ? { bytes, prefix } : undefined
}

export const contains = (cidr: Cidr, bytes: Bytes): boolean => {
  if (cidr.bytes.length !== bytes.length) return false
  const whole = cidr.prefix >> 3
  for (let i = 0; i < whole; i++) if (cidr.bytes[i] !== bytes[i]) return false
  const bits = cidr.prefix & 7
  if (bits === 0) return true
  const mask = (0xff << (8 - bits)) & 0xff
  return ((cidr.bytes[whole] ?? 0) & mask) === ((bytes[whole] ?? 0) & mask)
}

const block = (text: string): Cidr => {
  const cidr = parseCidr(text)
  if (cidr === undefined) throw new Error(`not a CIDR block: ${text}`) // a typo in the tables below
  return cidr
}

/** Why an address is not public. */
export type Range =
  | "unspecified"
  | "loopback"
  | "private"
  | "carrier-grade NAT"
  | "link-local"
  | "unique-local"
  | "site-local"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "benchmarking"
  | "reserved"

// IANA IPv4 special-purpose registry, the blocks that are not globally reachable
const IPV4_RANGES: ReadonlyArray<readonly [Cidr, Range]> = [
  [block("0.0.0.0/8"), "unspecified"],
  [block("10.0.0.0/8"), "private"],
  [block("100.64.0.0/10"), "carrier-grade NAT"],
  [block("127.0.0.0/8"), "loopback"],
  [block("169.254.0.0/16"), "link-local"],
  [block("172.16.0.0/12"), "private"],
  [block("192.0.0.0/24"), "reserved"],
  [block("192.0.2.0/24"), "documentation"],
  [block("192.88.99.0/24"), "reserved"],
  [block("192.168.0.0/16"), "private"],
  [block("198.18.0.0/15"), "benchmarking"],
  [block("198.51.100.0/24"), "documentation"],
  [block("203.0.113.0/24"), "documentation"],
  [block("224.0.0.0/4"), "multicast"],
  [block("255.255.255.255/32"), "broadcast"],
  [block("240.0.0.0/4"), "reserved"]
]

// IPv6 blocks outside global unicast (2000::/3) that have a name; the rest of that space is reserved
const IPV6_SPECIAL: ReadonlyArray<readonly [Cidr, Range]> = [
  [block("::/128"), "unspecified"],
  [block("::1/128"), "loopback"],
  [block("64:ff9b:1::/48"), "private"],
  [block("fc00::/7"), "unique-local"],
  [block("fe80::/10"), "link-local"],
  [block("fec0::/10"), "site-local"],
  [block("ff00::/8"), "multicast"]
]
const GLOBAL_UNICAST = block("2000::/3")
// inside global unicast: IETF protocol assignments (Teredo among them) and the documentation blocks
const IPV6_GLOBAL_EXCEPTIONS: ReadonlyArray<readonly [Cidr, Range]> = [
  [block("2001::/23"), "reserved"],
  [block("2001:db8::/32"), "documentation"],
  [block("3fff::/20"), "documentation"]
]

// IPv6 forms that reach an IPv4 address: mapped, NAT64 (well-known prefix) and 6to4
const MAPPED = block("::ffff:0:0/96")
const NAT64 = block("64:ff9b::/96")
const SIX_TO_FOUR = block("2002::/16")

/** The IPv4 address an IPv6 address stands for (mapped, NAT64, 6to4), if it is one of those. */
export const embeddedIpv4 = (bytes: Bytes): Bytes | undefined => {
  if (bytes.length !== 16) return undefined
  if (contains(MAPPED, bytes) || contains(NAT64, bytes)) return bytes.slice(12, 16)
  if (contains(SIX_TO_FOUR, bytes)) return bytes.slice(2, 6)
  return undefined
}

const rangeIn = (table: ReadonlyArray<readonly [Cidr, Range]>, bytes: Bytes): Range | undefined =>
  table.find(([cidr]) => contains(cidr, bytes))?.[1]

/** The non-public range an address lies in; undefined for a public address. */
export const rangeOf = (bytes: Bytes): Range | undefined => {
  if (bytes.length === 4) return rangeIn(IPV4_RANGES, bytes)
  const ipv4 = embeddedIpv4(bytes)
  if (ipv4 !== undefined) return rangeIn(IPV4_RANGES, ipv4)
  if (!contains(GLOBAL_UNICAST, bytes)) return rangeIn(IPV6_SPECIAL, bytes) ?? "reserved"
  return rangeIn(IPV6_GLOBAL_EXCEPTIONS, bytes)
}
