import { isForbiddenAddress } from './address-policy.js';

describe('isForbiddenAddress', () => {
  const forbidden: [string, string][] = [
    // IPv4: loopback, every notation inet_aton (and so getaddrinfo) accepts
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['127.1', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7f.0.0.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['2130706433', 'loopback'],
    ['017700000001', 'loopback'],
    // private (RFC 1918), edges included
    ['10.0.0.0', 'private'],
    ['10.0.0.5', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['192.168.255.255', 'private'],
    ['167772161', 'private'], // 10.0.0.1 as one number
    // the rest of the IPv4 special-purpose registry
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.253', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.255', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    // cloud metadata endpoints
    ['169.254.169.254', 'metadata'],
    ['0xa9fea9fe', 'metadata'], // 169.254.169.254 in hex
    ['2852039166', 'metadata'], // 169.254.169.254 as one number
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['192.0.0.192', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['[fd00:ec2::254]', 'metadata'],
    // IPv6
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'reserved'], // ORCHID
    ['2001:20::1', 'reserved'], // ORCHIDv2
    ['100::1', 'reserved'], // discard-only
    ['64:ff9b:1::a00:1', 'private'], // local-use NAT64
    ['5f00::1', 'reserved'], // outside 2000::/3
    ['4000::1', 'reserved'],
    ['e000::1', 'reserved'],
    // IPv4 inside IPv6: judged by the IPv4 address
    ['::ffff:127.0.0.1', 'ipv4-mapped loopback'],
    ['::ffff:7f00:1', 'ipv4-mapped loopback'],
    ['[::ffff:7f00:1]', 'ipv4-mapped loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'ipv4-mapped loopback'],
    ['::ffff:10.0.0.5', 'ipv4-mapped private'],
    ['::ffff:a9fe:a9fe', 'ipv4-mapped metadata'],
    ['::ffff:0.0.0.0', 'ipv4-mapped unspecified'],
    ['::127.0.0.1', 'ipv4-compatible loopback'],
    ['::7f00:1', 'ipv4-compatible loopback'],
    ['::a00:1', 'ipv4-compatible private'],
    ['::808:808', 'reserved'], // IPv4-compatible, deprecated even for a public address
    ['::8.8.8.8', 'reserved'],
    ['::ffff:0:7f00:1', 'ipv4-translated loopback'],
    ['::ffff:0:808:808', 'reserved'],
    ['64:ff9b::127.0.0.1', 'nat64 loopback'],
    ['64:ff9b::a00:5', 'nat64 private'],
    ['64:ff9b::a9fe:a9fe', 'nat64 metadata'],
    ['2002:7f00:1::1', '6to4 loopback'],
    ['2002:c0a8:101::1', '6to4 private'],
    ['2002:a9fe:a9fe::', '6to4 metadata'],
    // Teredo: 2001:0:SERVER:flags:port:CLIENT xor ffff:ffff
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'teredo private'], // client 10.0.0.1
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo loopback'], // client 127.0.0.1
    ['2001:0:7f00:1:8000:63bf:b7f7:f7f7', 'teredo loopback'], // server 127.0.0.1
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo documentation'], // RFC 4380's example, client 192.0.2.45
    // not an address at all: fail closed
    ['', 'invalid'],
    ['localhost', 'invalid'],
    ['example.com', 'invalid'],
    ['256.0.0.1', 'invalid'],
    ['1.2.3.4.5', 'invalid'],
    ['08.0.0.1', 'invalid'],
    ['::ffff:1.2.3', 'invalid'],
    ['1:2:3:4:5:6:7:8:9', 'invalid'],
    ['[::1', 'invalid'],
  ];

  it.each(forbidden)('refuses %s (%s)', (ip, reason) => {
    expect(isForbiddenAddress(ip)).toBe(reason);
  });

  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '9.255.255.255', // just below 10/8
    '11.0.0.0', // just above 10/8
    '100.63.255.255', // just below CGNAT
    '100.128.0.0', // just above CGNAT
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255', // just below multicast
    '1.0.0.0',
    '134744072', // 8.8.8.8 as one number
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:4860:4860::8888',
    '2001:200::1', // first address after 2001::/23
    '2003::1',
    '3ffe::1', // below 3fff::/20
    '[2606:4700:4700::1111]',
    '::ffff:8.8.8.8', // mapped public: reaches 8.8.8.8
    '::ffff:808:808',
    '64:ff9b::808:808', // NAT64 of a public address
    '64:ff9b::8.8.8.8',
    '2002:808:808::1', // 6to4 site behind a public address
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo: server 65.54.227.120, client 8.8.8.8
  ];

  it.each(allowed)('allows %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBeNull();
  });

  it('reads odd IPv4 notations as the address getaddrinfo would connect to', () => {
    expect(isForbiddenAddress('10.1')).toBe('private'); // 10.0.0.1
    expect(isForbiddenAddress('192.168.1')).toBe('private'); // 192.168.0.1
    expect(isForbiddenAddress('8.8.2056')).toBeNull(); // 8.8.8.8
    expect(isForbiddenAddress('0x08080808')).toBeNull();
  });

  it('agrees with the addresses the WHATWG URL parser makes of odd host notations', () => {
    const hosts: [string, string, string | null][] = [
      ['http://2130706433/', '127.0.0.1', 'loopback'],
      ['http://0177.0.0.1/', '127.0.0.1', 'loopback'],
      ['http://127.1/', '127.0.0.1', 'loopback'],
      ['http://0x7f.1/', '127.0.0.1', 'loopback'],
      ['http://0xA9FEA9FE/', '169.254.169.254', 'metadata'],
      ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]', 'ipv4-mapped loopback'],
      ['http://[0:0:0:0:0:ffff:7f00:1]/', '[::ffff:7f00:1]', 'ipv4-mapped loopback'],
      ['http://[::127.0.0.1]/', '[::7f00:1]', 'ipv4-compatible loopback'],
      ['http://134744072/', '8.8.8.8', null],
    ];
    for (const [url, hostname, reason] of hosts) {
      const parsed = new URL(url).hostname;
      expect(parsed).toBe(hostname);
      expect(isForbiddenAddress(parsed)).toBe(reason);
    }
  });
});
