/**
 * The spec's scopes (the flow's two, and the two further ones its operations
 * use), then this service's own: reading the change log, and managing the
 * webhook endpoints it is delivered to (docs/events-and-webhooks.md).
 */
export const SCOPES = [
  'spi.customers:read',
  'spi.customers:write',
  'simplified-payments-integration:read',
  'simplified-payments-integration.server:write',
  'spi.events:read',
  'spi.webhooks:write',
  'spi.reports:read',
  'spi.location-settings:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export const SCOPE = {
  customersRead: 'spi.customers:read',
  customersWrite: 'spi.customers:write',
  integrationRead: 'simplified-payments-integration:read',
  serverWrite: 'simplified-payments-integration.server:write',
  eventsRead: 'spi.events:read',
  webhooksWrite: 'spi.webhooks:write',
  reportsRead: 'spi.reports:read',
  locationSettingsWrite: 'spi.location-settings:write',
} as const satisfies Record<string, Scope>;

/** A client entitled to every location. */
export const ALL_LOCATIONS = '*';
