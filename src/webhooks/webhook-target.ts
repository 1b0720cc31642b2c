import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where deliveries may go. Outside WEBHOOK_ALLOW_PRIVATE_TARGETS only public
 * https: a webhook URL is chosen by an API client, and must not make this
 * service reach its own network (metadata services, databases, admin ports).
 */

/** A public unicast address: not private, loopback, link-local, unique-local, carrier-grade NAT, multicast or reserved. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** Why a URL cannot be an endpoint, as the 400 says it; undefined when it can. Hostnames are checked again, resolved, at each delivery. */
export function endpointUrlProblem(url: string, allowPrivate: boolean): string | undefined {
  if (allowPrivate) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:') return 'Must be an https URL (plain http only where WEBHOOK_ALLOW_PRIVATE_TARGETS is true).';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && !isPublicAddress(host))) {
    return 'Must be a public host: private, loopback and link-local addresses are refused.';
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
