import { ruleSweep, type BackgroundWork, type ModuleDescriptor, type ModuleParts, type TimedRule } from './api/module';
import { customersModule } from './customers/customers.module';
import { eventsModule } from './events/events.module';
import { checkoutModule } from './flows/checkout/checkout.module';
import { cardSetupModule } from './flows/card-setup/card-setup.module';
import { disputesModule } from './disputes/disputes.module';
import { disputeEvidenceModule } from './flows/dispute-evidence/dispute-evidence.module';
import { customerErasureModule } from './flows/customer-erasure/customer-erasure.module';
import { sandboxClockModule } from './flows/sandbox-clock/sandbox-clock.module';
import { mandatesModule } from './mandates/mandates.module';
import { paymentIntentsModule } from './payment-intents/payment-intents.module';
import { paymentMethodsModule } from './payment-methods/payment-methods.module';
import { refundsModule } from './refunds/refunds.module';
import { settlementModule } from './settlement/settlement.module';
import { setupIntentsModule } from './setup-intents/setup-intents.module';
import { webhooksModule } from './webhooks/webhooks.module';

/**
 * The one list of features and flows (docs/architecture.md, Adding a
 * feature). From it: the app's routes and the document (every module's
 * operations, in this order: the busiest first, as Express tries routes in
 * order), the services (built once, in this order), the worker's background
 * work (each timed rule's sweep, each module's own work), the sandbox
 * clock's rules (every module's, so none is forgotten), and the import rules
 * (.dependency-cruiser.cjs reads each module's folder, layer and reaches).
 * The sandbox clock comes last: it is given the timed rules of those before it.
 */
export const MODULES = [
  paymentMethodsModule,
  paymentIntentsModule,
  checkoutModule,
  setupIntentsModule,
  cardSetupModule,
  refundsModule,
  disputesModule,
  mandatesModule,
  customersModule,
  customerErasureModule,
  disputeEvidenceModule,
  eventsModule,
  webhooksModule,
  settlementModule,
  sandboxClockModule,
] as const;

type Module = (typeof MODULES)[number];

/** The services and flows the operations' handlers are given, each under its module's key. */
export type ApiServices = { [M in Module as M['key']]: M extends ModuleDescriptor<string, infer Service> ? Service : never };

/** What the modules make for a process: their services, and the work beside the requests the worker starts. */
export interface BuiltModules {
  services: ApiServices;
  /** Each timed rule's sweep on real time, then each module's own work, in the list's order. */
  background: BackgroundWork[];
}

/** Every module's service, built once for the process (the composition root's, and the tests' apps'), and its work. */
export function buildModules(parts: ModuleParts): BuiltModules {
  const services: Record<string, unknown> = {};
  const timedRules: TimedRule[] = [];
  const own: BackgroundWork[] = [];
  for (const module of MODULES as readonly ModuleDescriptor[]) {
    const service = module.build(parts, [...timedRules]);
    services[module.key] = service;
    timedRules.push(...(module.timedRules?.(service, parts) ?? []));
    own.push(...(module.background?.(service, parts) ?? []));
  }
  return { services: services as ApiServices, background: [...timedRules.map((rule) => ruleSweep(rule, parts.db, parts.logger)), ...own] };
}
