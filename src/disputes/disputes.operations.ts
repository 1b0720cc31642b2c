import { operationsOf } from '../api/operation';
import { SCOPE } from '../auth/scopes';
import { paymentIntentParamsSchema } from '../payment-intents';
import { DISPUTE_CARDS, SANDBOX_DISPUTE_AFTER_SECONDS } from '../payment-processor/sandbox-cards';
import { DomainError } from '../platform/errors/domain-error';
import { pagingProse } from '../platform/validation/page-query';
import { outcomeRuleTable } from './dispute-outcome';
import { disputeLifecycle } from './dispute-status';
import {
  decideSandboxDisputeRequestSchema,
  DISPUTE_CURSOR,
  disputeListResponseSchema,
  disputeParamsSchema,
  disputeSchema,
  INTENT_DISPUTE_CURSOR,
  listDisputesQuerySchema,
  listIntentDisputesQuerySchema,
  openSandboxDisputeRequestSchema,
  submitDisputeEvidenceRequestSchema,
  toDispute,
} from './disputes.schemas';
import type { DisputeRecord } from './dispute-record';
import type { DisputesService } from './disputes.service';

/**
 * Disputes read, evidenced and accepted; the sandbox's helpers open,
 * escalate and decide them (docs/disputes.md). Server scope only: evidence
 * holds personal data, never within a session secret's reach.
 */
const operation = operationsOf<{ disputes: DisputesService }>();
const tag = 'Disputes';

/** A page of disputes as every disputes list answers it. */
function toDisputePage(found: { disputes: DisputeRecord[]; hasMore: boolean }) {
  return { results: found.disputes.length, disputes: found.disputes.map(toDispute), hasMore: found.hasMore };
}

const WHAT = `Not in the spec (Toast has no dispute API; Stripe's shape, Adyen's deadlines, Toast's missed deadline). ${disputeLifecycle()}`;

export const listDisputes = operation({
  method: 'get',
  path: '/v1/disputes',
  operationId: 'listDisputes',
  tag,
  summary: "List the location's disputes",
  description: `Not in the spec. Filters by \`status\`, \`stage\`, \`paymentIntentId\` and \`dueBefore\` (what needs an answer soon). ${pagingProse('newest first', DISPUTE_CURSOR)}`,
  access: { scope: SCOPE.serverWrite },
  query: listDisputesQuerySchema,
  responses: { 200: { description: 'A page of disputes.', schema: disputeListResponseSchema } },
  errors: [],
  handle: async ({ db, location, query }, { disputes }) => {
    const { status, stage, paymentIntentId, dueBefore, ...page } = query;
    const found = await disputes.list(db, location, { status, stage, paymentIntentId, dueBefore }, page);
    return { status: 200, body: toDisputePage(found) };
  },
});

export const getDispute = operation({
  method: 'get',
  path: '/v1/disputes/{id}',
  operationId: 'getDispute',
  tag,
  summary: 'Get a dispute',
  description: WHAT,
  access: { scope: SCOPE.serverWrite },
  params: disputeParamsSchema,
  responses: { 200: { description: 'The dispute.', schema: disputeSchema } },
  errors: ['DISPUTE_NOT_FOUND'],
  handle: async ({ db, location, params }, { disputes }) => ({ status: 200, body: toDispute(await disputes.get(db, location, params.id)) }),
});

export const listPaymentIntentDisputes = operation({
  method: 'get',
  path: '/v1/payment-intents/{id}/disputes',
  operationId: 'listPaymentIntentDisputes',
  tag,
  summary: "List a payment intent's disputes",
  description: `Not in the spec. ${pagingProse('newest first', INTENT_DISPUTE_CURSOR)}`,
  access: { scope: SCOPE.serverWrite },
  params: paymentIntentParamsSchema,
  query: listIntentDisputesQuerySchema,
  responses: { 200: { description: 'A page of disputes.', schema: disputeListResponseSchema } },
  errors: ['PAYMENT_INTENT_NOT_FOUND'],
  handle: async ({ db, location, params, query }, { disputes }) => {
    const found = await disputes.listOfIntent(db, location, params.id, query);
    return { status: 200, body: toDisputePage(found) };
  },
});

export const submitDisputeEvidence = operation({
  method: 'post',
  path: '/v1/disputes/{id}/evidence',
  operationId: 'submitDisputeEvidence',
  tag,
  summary: "Stage a dispute's evidence, and submit it",
  description: `Not in the spec; Stripe's semantics. The fields given are staged over those staged before (\`documents\` replaces the list); with \`submit: true\` the whole evidence goes to the issuer, once: the dispute moves to UNDER_REVIEW and \`decisionExpectedBy\` is set by the card brand's decision window. A second submit, or any change after it, is 409 \`DISPUTE_EVIDENCE_ALREADY_SUBMITTED\`; after \`evidenceDueBy\`, 409 \`DISPUTE_EVIDENCE_DUE_PASSED\`; in a closed status, 409 \`DISPUTE_STATUS_CONFLICT\`. Documents are references (an https URL and the file's SHA-256), never files.

${outcomeRuleTable()}`,
  access: { scope: SCOPE.serverWrite },
  idempotent: true,
  params: disputeParamsSchema,
  body: { schema: submitDisputeEvidenceRequestSchema },
  responses: { 200: { description: 'The dispute with its evidence as staged (or submitted).', schema: disputeSchema } },
  errors: ['DISPUTE_NOT_FOUND', 'DISPUTE_STATUS_CONFLICT', 'DISPUTE_EVIDENCE_ALREADY_SUBMITTED', 'DISPUTE_EVIDENCE_DUE_PASSED'],
  handle: async ({ write, params, body }, { disputes }) => ({ status: 200, body: toDispute(await disputes.evidence(write, params.id, body)) }),
});

export const acceptDispute = operation({
  method: 'post',
  path: '/v1/disputes/{id}/accept',
  operationId: 'acceptDispute',
  tag,
  summary: 'Accept a chargeback',
  description:
    "Not in the spec (Stripe's close, Adyen's accept, Toast's Accept). A chargeback in NEEDS_RESPONSE becomes ACCEPTED, closed by MERCHANT: its money stays withdrawn. Accepting an accepted one (by the merchant, or by its deadline) answers it as it is, with no second event; any other stage or status is 409 `DISPUTE_STATUS_CONFLICT` naming it.",
  access: { scope: SCOPE.serverWrite },
  idempotent: true,
  params: disputeParamsSchema,
  responses: { 200: { description: 'The dispute, ACCEPTED.', schema: disputeSchema } },
  errors: ['DISPUTE_NOT_FOUND', 'DISPUTE_STATUS_CONFLICT'],
  handle: async ({ write, params }, { disputes }) => ({ status: 200, body: toDispute(await disputes.accept(write, params.id)) }),
});

/** The helpers exist only with the sandbox processor: with a real one, 404 as for any path that is not there. */
function sandboxOnly(disputes: DisputesService): DisputesService {
  if (!disputes.sandbox) throw new DomainError('ROUTE_NOT_FOUND');
  return disputes;
}

const SANDBOX = 'Not in the spec; only while the sandbox processor is in use (404 otherwise), as the sandbox clock.';
const sandboxTag = 'Sandbox clock';

export const openSandboxDispute = operation({
  method: 'post',
  path: '/v1/sandbox/payment-intents/{id}/disputes',
  operationId: 'openSandboxDispute',
  tag: sandboxTag,
  summary: 'Open a dispute of a captured payment (sandbox)',
  description: `${SANDBOX} What a cardholder's bank does: opens an inquiry or a chargeback of any reason and amount on a SUCCEEDED intent (409 \`PAYMENT_INTENT_STATUS_CONFLICT\` otherwise). \`amount\` is at most what is left: captured, less refunded, less already disputed (409 \`DISPUTE_AMOUNT_EXCEEDS_AVAILABLE\` naming it; a fully refunded payment cannot be disputed). Without this helper, the test cards ${Object.keys(
    DISPUTE_CARDS,
  )
    .map((lastFour) => `\`${lastFour}\``)
    .join(' and ')} open one ${SANDBOX_DISPUTE_AFTER_SECONDS} s after their capture.`,
  access: { scope: SCOPE.serverWrite },
  params: paymentIntentParamsSchema,
  body: { schema: openSandboxDisputeRequestSchema },
  responses: { 201: { description: 'The dispute, NEEDS_RESPONSE.', schema: disputeSchema } },
  errors: ['ROUTE_NOT_FOUND', 'PAYMENT_INTENT_NOT_FOUND', 'PAYMENT_INTENT_STATUS_CONFLICT', 'DISPUTE_AMOUNT_EXCEEDS_AVAILABLE'],
  handle: async ({ write, params, body }, { disputes }) => ({ status: 201, body: toDispute(await sandboxOnly(disputes).open(write, params.id, body)) }),
});

export const escalateSandboxDispute = operation({
  method: 'post',
  path: '/v1/sandbox/disputes/{id}/escalate',
  operationId: 'escalateSandboxDispute',
  tag: sandboxTag,
  summary: 'Turn an inquiry into a chargeback (sandbox)',
  description: `${SANDBOX} An open inquiry becomes a chargeback in NEEDS_RESPONSE with a new \`evidenceDueBy\`; its amount (at most what is left of the payment) and the dispute fee are withdrawn. An inquiry whose payment refunds left nothing closes instead, closed by REFUND. Any other stage or status: 409 \`DISPUTE_STATUS_CONFLICT\`.`,
  access: { scope: SCOPE.serverWrite },
  params: disputeParamsSchema,
  responses: { 200: { description: 'The dispute, a chargeback.', schema: disputeSchema } },
  errors: ['ROUTE_NOT_FOUND', 'DISPUTE_NOT_FOUND', 'DISPUTE_STATUS_CONFLICT'],
  handle: async ({ write, params }, { disputes }) => ({ status: 200, body: toDispute(await sandboxOnly(disputes).escalate(write, params.id)) }),
});

export const decideSandboxDispute = operation({
  method: 'post',
  path: '/v1/sandbox/disputes/{id}/decide',
  operationId: 'decideSandboxDispute',
  tag: sandboxTag,
  summary: 'Force the decision of a dispute under review (sandbox)',
  description: `${SANDBOX} The issuer decides a dispute UNDER_REVIEW now, as \`outcome\` says, whatever its evidence: a chargeback WON (its amount reinstated) or LOST; an inquiry CLOSED, or, lost, a chargeback. Any other status: 409 \`DISPUTE_STATUS_CONFLICT\`.`,
  access: { scope: SCOPE.serverWrite },
  params: disputeParamsSchema,
  body: { schema: decideSandboxDisputeRequestSchema },
  responses: { 200: { description: 'The dispute, decided.', schema: disputeSchema } },
  errors: ['ROUTE_NOT_FOUND', 'DISPUTE_NOT_FOUND', 'DISPUTE_STATUS_CONFLICT'],
  handle: async ({ write, params, body }, { disputes }) => ({
    status: 200,
    body: toDispute(await sandboxOnly(disputes).decide(write, params.id, body.outcome)),
  }),
});

export const disputesOperations = [
  listDisputes,
  getDispute,
  listPaymentIntentDisputes,
  submitDisputeEvidence,
  acceptDispute,
  openSandboxDispute,
  escalateSandboxDispute,
  decideSandboxDispute,
];
