import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses outbound requests may reach (the SSRF guard's policy).
 *
 * `ipaddr.js` parses (every notation `inet_aton` accepts: `127.1`, `0177.0.0.1`, `2130706433`,
 * `0x7f000001`; IPv6 with zone ids and dotted tails) and matches CIDRs; the tables below say what
 * is refused and why. They follow the IANA special-purpose registries: every range that is not
 * globally reachable is refused, and a few globally routed addresses that clouds use for instance
 * metadata. First match wins, so the specific entries come before the ranges that hold them.
 */
type Range<T> = readonly [T, number, string];

function ranges<T extends ipaddr.IPv4 | ipaddr.IPv6>(
  parse: (cidr: string) => [T, number],
  table: [string, string][],
): Range<T>[] {
  return table.map(([cidr, reason]) => [...parse(cidr), reason] as const);
}

const IPV4: Range<ipaddr.IPv4>[] = ranges(
  (cidr) => ipaddr.IPv4.parseCIDR(cidr),
  [
    ['169.254.169.254/32', 'metadata'], // AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean instance metadata
    ['169.254.170.2/32', 'metadata'], // AWS ECS task metadata and credentials
    ['100.100.100.200/32', 'metadata'], // Alibaba Cloud
    ['168.63.129.16/32', 'metadata'], // Azure WireServer (a public address answering only inside Azure)
    ['192.0.0.192/32', 'metadata'], // Oracle Cloud (classic)
    ['0.0.0.0/8', 'unspecified'], // "this network"; 0.0.0.0 reaches the local host on Linux
    ['10.0.0.0/8', 'private'],
    ['100.64.0.0/10', 'cgnat'],
    ['127.0.0.0/8', 'loopback'],
    ['169.254.0.0/16', 'link-local'],
    ['172.16.0.0/12', 'private'],
    ['192.0.0.0/24', 'reserved'], // IETF protocol assignments (DS-Lite, NAT64 discovery, …)
    ['192.0.2.0/24', 'documentation'],
    ['192.88.99.0/24', 'reserved'], // former 6to4 relay anycast
    ['192.168.0.0/16', 'private'],
    ['198.18.0.0/15', 'benchmarking'],
    ['198.51.100.0/24', 'documentation'],
    ['203.0.113.0/24', 'documentation'],
    ['224.0.0.0/4', 'multicast'],
    ['255.255.255.255/32', 'broadcast'],
    ['240.0.0.0/4', 'reserved'],
  ],
);

/** Matched before the IPv4-embedding forms below (:: and ::1 are also in ::/96). */
const IPV6_FIRST: Range<ipaddr.IPv6>[] = ranges(
  (cidr) => ipaddr.IPv6.parseCIDR(cidr),
  [
    ['fd00:ec2::254/128', 'metadata'], // AWS instance metadata over IPv6
    ['::/128', 'unspecified'],
    ['::1/128', 'loopback'],
  ],
);

const IPV6: Range<ipaddr.IPv6>[] = ranges(
  (cidr) => ipaddr.IPv6.parseCIDR(cidr),
  [
    ['64:ff9b:1::/48', 'private'], // local-use NAT64 (RFC 8215)
    ['fc00::/7', 'unique-local'],
    ['fe80::/10', 'link-local'],
    ['fec0::/10', 'site-local'],
    ['ff00::/8', 'multicast'],
    ['2001:2::/48', 'benchmarking'],
    ['2001:db8::/32', 'documentation'],
    ['3fff::/20', 'documentation'],
    ['2001::/23', 'reserved'], // IETF protocol assignments (after Teredo, handled below)
  ],
);

/** Only 2000::/3 is allocated as global unicast; everything else left after the tables is not. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * IPv6 ranges that carry an IPv4 address: a connection to them reaches (or is translated to) that
 * IPv4 address, so they are judged by it. `ipv4` extracts the embedded address.
 */
const EMBEDDING: {
  kind: string;
  range: [ipaddr.IPv6, number];
  ipv4: (bytes: number[]) => number[][];
  publicAllowed: boolean;
}[] = [
  // ::ffff:a.b.c.d: the IPv4 address itself on a dual-stack socket.
  {
    kind: 'ipv4-mapped',
    range: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'),
    ipv4: (b) => [b.slice(12)],
    publicAllowed: true,
  },
  // ::ffff:0:a.b.c.d (SIIT, RFC 6145): only meaningful inside a translator.
  {
    kind: 'ipv4-translated',
    range: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'),
    ipv4: (b) => [b.slice(12)],
    publicAllowed: false,
  },
  // ::a.b.c.d (deprecated by RFC 4291). :: and ::1 are in the table above, matched first.
  { kind: 'ipv4-compatible', range: ipaddr.IPv6.parseCIDR('::/96'), ipv4: (b) => [b.slice(12)], publicAllowed: false },
  // NAT64 well-known prefix (RFC 6052): the translator connects to the IPv4 address.
  { kind: 'nat64', range: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), ipv4: (b) => [b.slice(12)], publicAllowed: true },
  // 6to4 (RFC 3056): 2002:AABB:CCDD::/48 is the site behind a.b.c.d.
  { kind: '6to4', range: ipaddr.IPv6.parseCIDR('2002::/16'), ipv4: (b) => [b.slice(2, 6)], publicAllowed: true },
  // Teredo (RFC 4380): 2001:0:SERVER:flags:port:~CLIENT; both the server and the client address.
  {
    kind: 'teredo',
    range: ipaddr.IPv6.parseCIDR('2001::/32'),
    ipv4: (b) => [b.slice(4, 8), b.slice(12).map((byte) => byte ^ 0xff)],
    publicAllowed: true,
  },
];

function classifyIpv4(address: ipaddr.IPv4): string | null {
  for (const [network, bits, reason] of IPV4) if (address.match(network, bits)) return reason;
  return null;
}

function classifyIpv6(address: ipaddr.IPv6): string | null {
  for (const [network, bits, reason] of IPV6_FIRST) if (address.match(network, bits)) return reason;
  const bytes = address.toByteArray();
  for (const { kind, range, ipv4, publicAllowed } of EMBEDDING) {
    if (!address.match(range)) continue;
    for (const octets of ipv4(bytes)) {
      const reason = classifyIpv4(new ipaddr.IPv4(octets));
      if (reason) return `${kind} ${reason}`;
    }
    return publicAllowed ? null : 'reserved';
  }
  for (const [network, bits, reason] of IPV6) if (address.match(network, bits)) return reason;
  return address.match(GLOBAL_UNICAST) ? null : 'reserved';
}

/** `::a.b.c.d`: ipaddr.js reads it as `::ffff:a.b.c.d`; RFC 4291 (and Node) as IPv4-compatible `::a.b.c.d`. */
const COMPATIBLE_DOTTED = /^::(\d{1,3}(?:\.\d{1,3}){3})(%.*)?$/;

function parse(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  try {
    const compatible = COMPATIBLE_DOTTED.exec(bare);
    if (compatible)
      return ipaddr.fromByteArray([...new Array<number>(12).fill(0), ...ipaddr.IPv4.parse(compatible[1]).octets]);
    return ipaddr.parse(bare);
  } catch {
    return null;
  }
}

/**
 * Why an outbound connection to `ip` must be refused, or null when it is a public address.
 *
 * Reasons: `loopback`, `private`, `link-local`, `cgnat`, `multicast`, `broadcast`, `unspecified`,
 * `metadata`, `documentation`, `benchmarking`, `reserved`, `unique-local`, `site-local`, and for
 * IPv6 forms that carry an IPv4 address the form and the IPv4 reason (`ipv4-mapped loopback`,
 * `nat64 private`, `6to4 link-local`, `teredo private`, …). For text that is not an IP address
 * it returns `invalid` (refused: the guard fails closed). Brackets (`[::1]`) and zone ids are accepted.
 */
export function isForbiddenAddress(ip: string): string | null {
  const address = parse(ip.trim());
  if (!address) return 'invalid';
  return address.kind() === 'ipv4' ? classifyIpv4(address as ipaddr.IPv4) : classifyIpv6(address as ipaddr.IPv6);
}
