import { operationsOf } from '../../api/operation';
import { SCOPE } from '../../auth/scopes';
import { byCodeUnits } from '../../platform/code-unit-order';
import { createPaymentMethodRequestSchema } from '../../payment-methods';
import { AUTHENTICATION_REQUIRED_LAST_FOUR, isProcessingError, SANDBOX_CARDS } from '../../payment-processor/sandbox-cards';
import { SETUP_INTENT_STATUS_POINTER, setupIntentParamsSchema, setupIntentSchema, toSetupIntent } from '../../setup-intents';
import type { CardSetupFlow } from './card-setup.flow';

const operation = operationsOf<{ cardSetup: CardSetupFlow }>();

/** The sandbox's verdicts on a verification, from its test cards. */
const sandboxCards = Object.entries(SANDBOX_CARDS).sort(([a], [b]) => byCodeUnits(a, b));
const VERIFY_OUTCOMES = `${sandboxCards
  .filter(([, error]) => !isProcessingError(error))
  .map(([lastFour]) => `\`${lastFour}\``)
  .join(', ')} decline, ${sandboxCards
  .filter(([, error]) => isProcessingError(error))
  .map(([lastFour]) => `\`${lastFour}\``)
  .join(', ')} fails, and, the payor being present, the card that asks for authentication off-session (\`${AUTHENTICATION_REQUIRED_LAST_FOUR}\`) passes.`;

export const confirmSetupIntent = operation({
  method: 'post',
  path: '/v1/setup-intents/{id}/confirm',
  operationId: 'confirmSetupIntent',
  tag: 'Setup intents',
  summary: 'Confirm a setup intent: verify the card and save it',
  description: `Not in the spec; Toast's "$0.00 auth and saves card". The body is the vault's card metadata, as a card's save takes it (POST /v1/customers/{id}/payment-methods). The browser side confirms with \`simplified-payments-integration:read\` and the setup intent's live \`Platform-Session-Secret\`; the server side with \`simplified-payments-integration.server:write\`.

The setup intent moves to PROCESSING (committed before the processor is asked), then the processor verifies the card for $0. Approved: in one transaction the card is saved to the customer (a card of theirs with the same \`fingerprint\` is reused, its expiry updated), for OFF_SESSION usage the mandate is made from the consent recorded at creation, and the setup intent is SUCCEEDED naming both (\`paymentMethodId\`, \`mandateId\`), with the events \`payment_method.attached\`, \`mandate.created\` and \`setup_intent.succeeded\`. Declined or failed: back to REQUIRES_PAYMENT_METHOD with \`lastSetupError\`, nothing saved (\`setup_intent.setup_failed\`); confirm again with another card. The answer is 200 with the setup intent as it stands after the processor's answer; it is PROCESSING only if the processor did not answer (the service settles it later with the same idempotency key). A customer at the card cap gets what a save gets, 409 \`CARD_LIMIT_REACHED\`, and nothing changes. Two confirms racing verify once: the other answers 409 naming PROCESSING.

The sandbox verifies by the card's last four digits as it authorizes (the table under confirmPaymentIntent; docs/checkout.md): ${VERIFY_OUTCOMES}

${SETUP_INTENT_STATUS_POINTER}`,
  access: { scope: SCOPE.serverWrite, sessionSecret: { param: 'id', is: 'setupIntentId' } },
  params: setupIntentParamsSchema,
  body: { schema: createPaymentMethodRequestSchema },
  responses: { 200: { description: "The setup intent after the processor's answer (a decline included: see `lastSetupError`).", schema: setupIntentSchema } },
  errors: ['SETUP_INTENT_NOT_FOUND', 'SESSION_SECRET_INVALID', 'SETUP_INTENT_STATUS_CONFLICT', 'CARD_LIMIT_REACHED'],
  handle: async ({ write, params, body }, { cardSetup }) => ({ status: 200, body: toSetupIntent(await cardSetup.confirm(write, params.id, body)) }),
});

export const cardSetupOperations = [confirmSetupIntent];
