import {
  AddressClass,
  canonicalAddress,
  classifyAddress,
  isAddressClassAllowed,
  parseIPv6,
} from './address-classification';

describe('classifyAddress', () => {
  it.each<[string, AddressClass]>([
    // cloud metadata
    ['169.254.169.254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['FD00:EC2:0:0:0:0:0:254', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    // link-local
    ['169.254.0.1', 'link_local'],
    ['169.254.255.255', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf:ffff::1', 'link_local'],
    ['::ffff:169.254.10.10', 'link_local'],
    // loopback
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['2002:7f00:0001::1', 'loopback'],
    // private
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['198.18.0.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fec0::1', 'private'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b:1::1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    // unspecified
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['::ffff:0.0.0.0', 'unspecified'],
    // multicast and reserved
    ['224.0.0.1', 'reserved'],
    ['239.255.255.250', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['ff02::1', 'reserved'],
    // public
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['169.255.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['11.0.0.1', 'public'],
    ['126.255.255.255', 'public'],
    ['128.0.0.1', 'public'],
    ['192.167.255.255', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['fe7f:ffff::1', 'public'],
    ['fd00:ec2::253', 'private'],
  ])('classifies %s as %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each([
    ['localhost'],
    ['example.com'],
    [''],
    ['256.0.0.1'],
    ['1.2.3'],
    ['::g'],
    ['1:2:3:4:5:6:7:8:9'],
  ])('answers null for %j, which is not an IP address', (input) => {
    expect(classifyAddress(input)).toBeNull();
  });
});

describe('parseIPv6', () => {
  it('expands compressed forms and trailing dotted quads to 16 bytes', () => {
    expect(parseIPv6('::1')).toEqual([...Array<number>(15).fill(0), 1]);
    expect(parseIPv6('fe80::')).toEqual([0xfe, 0x80, ...Array<number>(14).fill(0)]);
    expect(parseIPv6('::ffff:1.2.3.4')).toEqual([
      ...Array<number>(10).fill(0),
      0xff,
      0xff,
      1,
      2,
      3,
      4,
    ]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
  });

  it('answers null for text that is not IPv6', () => {
    expect(parseIPv6('127.0.0.1')).toBeNull();
    expect(parseIPv6('gateway.local')).toBeNull();
  });
});

describe('isAddressClassAllowed', () => {
  it.each<[AddressClass, boolean, boolean]>([
    ['metadata', false, false],
    ['link_local', false, false],
    ['reserved', false, false],
    ['loopback', true, false],
    ['private', true, false],
    ['unspecified', true, false],
    ['public', true, true],
  ])(
    '%s: allowed=%s with private ranges open, %s with OUTBOUND_DENY_PRIVATE',
    (cls, open, denying) => {
      expect(isAddressClassAllowed(cls, false)).toBe(open);
      expect(isAddressClassAllowed(cls, true)).toBe(denying);
    },
  );
});

describe('canonicalAddress', () => {
  it.each([
    ['10.0.0.5', '10.0.0.5'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['FD00:0::7', 'fd00::7'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
  ])('writes %s as %s', (ip, canonical) => {
    expect(canonicalAddress(ip)).toBe(canonical);
  });
});
