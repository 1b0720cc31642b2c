import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where deliveries may go. Outside WEBHOOK_ALLOW_PRIVATE_TARGETS only public
 * https: a webhook URL is chosen by an API client, and must not make this
 * service reach its own network (metadata services, databases, admin ports).
 */

/**
 * The IPv4 addresses an IPv6 address carries and reaches through a relay or
 * a translator: IPv4-compatible (::/96, deprecated but still parsed),
 * IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96 and the local-use
 * 64:ff9b:1::/48), 6to4 (2002::/16, bits 16 to 47) and Teredo (2001::/32:
 * its server, and its client XOR 0xffffffff). An address is as public as the
 * least public of them.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const parts = address.parts;
  const v4 = (high: number, low: number) => ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]) as ipaddr.IPv4;
  const [p0, p1, p2, p3, p4, p5, p6, p7] = parts as [number, number, number, number, number, number, number, number];
  if (p0 === 0 && p1 === 0 && p2 === 0 && p3 === 0 && p4 === 0 && (p5 === 0 || p5 === 0xffff) && (p6 !== 0 || p7 > 1)) return [v4(p6, p7)];
  if (p0 === 0x64 && p1 === 0xff9b && (p2 === 1 || (p2 === 0 && p3 === 0 && p4 === 0 && p5 === 0))) return [v4(p6, p7)];
  if (p0 === 0x2002) return [v4(p1, p2)];
  if (p0 === 0x2001 && p1 === 0) return [v4(p2, p3), v4(p6 ^ 0xffff, p7 ^ 0xffff)];
  return [];
}

/** A public unicast address: not private, loopback, link-local, unique-local, carrier-grade NAT, multicast or reserved, nor an IPv6 form of one. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const carried = embeddedIPv4(parsed as ipaddr.IPv6);
  if (carried.length > 0) return carried.every((inner) => inner.range() === 'unicast');
  return parsed.range() === 'unicast';
}

/** A host name as the resolver reads it: without the trailing dot of a fully qualified name (`localhost.` is localhost). */
function withoutTrailingDots(host: string): string {
  return host.replace(/\.+$/, '');
}

/** Why a URL cannot be an endpoint, as the 400 says it; undefined when it can. Hostnames are checked again, resolved, at each delivery. */
export function endpointUrlProblem(url: string, allowPrivate: boolean): string | undefined {
  if (allowPrivate) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:') return 'Must be an https URL (plain http only where WEBHOOK_ALLOW_PRIVATE_TARGETS is true).';
  const host = withoutTrailingDots(parsed.hostname.replace(/^\[|\]$/g, '')).toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && !isPublicAddress(host))) {
    return 'Must be a public host: private, loopback and link-local addresses (also inside an IPv6 form) are refused.';
  }
  return undefined;
}

/**
 * A `lookup` for http.request that resolves every address of the host and
 * refuses the connection if any is not public: the check is made on the
 * addresses actually connected to, so a name that resolves differently by
 * the time of delivery (DNS rebinding) is still caught.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find(({ address }) => !isPublicAddress(address));
    if (refused !== undefined || addresses.length === 0) {
      return callback(new Error(`refused: ${hostname} resolves to a non-public address`), '', 0);
    }
    if (options.all === true) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    const [first] = addresses as [LookupAddress];
    return callback(null, first.address, first.family);
  });
};
