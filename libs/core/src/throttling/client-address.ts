import ipaddr from 'ipaddr.js';

/**
 * What per-address limits count by: an IPv4 address as is, an IPv6 address by its /64 (one
 * subscriber's usual allocation, whose 2^64 addresses would otherwise each get a fresh bucket), and
 * an IPv4-mapped IPv6 address (::ffff:192.0.2.1) as the IPv4 address it carries.
 */
export function clientAddressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}
