import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import { AppError } from '../../platform/core/errors.js'

/**
 * Where a webhook may be sent. A URL's host is resolved, and every address it resolves to must be
 * public: an operator (or whoever holds an owner's session) must not be able to make the server
 * call its own loopback, the private network it sits in, or a cloud's metadata service. Checked when
 * an endpoint is made or changed, and again before each send, which then connects to the address it
 * checked (DNS can change between the two, on purpose or not).
 */

/** Ranges that are not the public internet (IANA special-purpose registries), by family. */
const NON_PUBLIC_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
]
const NON_PUBLIC_V6: Array<[string, number]> = [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['64:ff9b:1::', 48], // local-use NAT64: a translator inside someone's own network, to any IPv4 there
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: an IPv4 address inside, reached through a relay
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
]

function blockList(): BlockList {
  const list = new BlockList()
  for (const [net, prefix] of NON_PUBLIC_V4) list.addSubnet(net, prefix, 'ipv4')
  for (const [net, prefix] of NON_PUBLIC_V6) list.addSubnet(net, prefix, 'ipv6')
  return list
}

/** The 8 groups of an IPv6 address (any textual form, a dotted IPv4 tail included). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0]!
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number]
    text = text.slice(0, -dotted[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined]
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0')
  return [...left, ...fill, ...right].map((group) => parseInt(group || '0', 16))
}

/**
 * The IPv4 address an IPv6 one carries, or null: IPv4-mapped (::ffff:0:0/96, ::ffff:a.b.c.d),
 * IPv4-translated (::ffff:0:0:0/96, ::ffff:0:a.b.c.d) and the well-known NAT64 prefix (64:ff9b::/96).
 * Each reaches the IPv4 address it carries, so it is as public as that address.
 */
function embeddedV4(address: string): string | null {
  const g = ipv6Groups(address)
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  const mapped = zeros(0, 5) && g[5] === 0xffff
  const translated = zeros(0, 4) && g[4] === 0xffff && g[5] === 0
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)
  if (!mapped && !translated && !nat64) return null
  return [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255].join('.')
}

/** Which receiver addresses may be called: private networks are refused unless allowed, so a webhook cannot probe the host's network. */
export class AddressPolicy {
  private readonly blocked = blockList()

  constructor(private readonly allowPrivate: boolean) {}

  /** True when `address` (an IP literal) is on the public internet. */
  isPublic(address: string): boolean {
    const family = isIP(address)
    if (family === 4) return !this.blocked.check(address, 'ipv4')
    if (family !== 6) return false
    const v4 = embeddedV4(address)
    if (v4 !== null) return this.isPublic(v4)
    return !this.blocked.check(address.split('%')[0]!, 'ipv6')
  }

  /**
   * The address to connect to for `url`: its host resolved, every answer checked. Throws a 400
   * `WEBHOOK_URL_REFUSED` saying why, for the admin API and the delivery log alike.
   */
  async resolve(url: URL): Promise<{ address: string; family: 4 | 6 }> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw refused('the URL must start with http:// or https://')
    }
    if (url.username || url.password) throw refused('the URL must not carry a user name or password')
    const host = url.hostname.replace(/^\[|\]$/g, '')
    const literal = isIP(host)
    let answers: Array<{ address: string; family: number }>
    if (literal) answers = [{ address: host, family: literal }]
    else {
      try {
        answers = await lookup(host, { all: true, verbatim: true })
      } catch {
        throw refused(`its host ${host} does not resolve`)
      }
    }
    if (answers.length === 0) throw refused(`its host ${host} does not resolve`)
    if (!this.allowPrivate) {
      const inner = answers.find((answer) => !this.isPublic(answer.address))
      if (inner) {
        throw refused(
          `its host ${host} resolves to ${inner.address}, a loopback, private or otherwise non-public address (set WEBHOOK_ALLOW_PRIVATE=true to allow those)`,
        )
      }
    }
    const first = answers[0]!
    return { address: first.address, family: first.family === 6 ? 6 : 4 }
  }
}

function refused(why: string): AppError {
  return new AppError(400, 'WEBHOOK_URL_REFUSED', `This webhook URL is refused: ${why}`)
}
