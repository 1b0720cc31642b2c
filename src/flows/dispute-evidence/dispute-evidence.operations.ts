import { operationsOf } from '../../api/operation';
import { SCOPE } from '../../auth/scopes';
import { disputeParamsSchema } from '../../disputes';
import type { DisputeEvidenceFlow, DraftSources } from './dispute-evidence.flow';
import { evidenceDraftSchema } from './dispute-evidence.schemas';

const operation = operationsOf<DraftSources & { disputeEvidence: DisputeEvidenceFlow }>();

export const getDisputeEvidenceDraft = operation({
  method: 'get',
  path: '/v1/disputes/{id}/evidence-draft',
  operationId: 'getDisputeEvidenceDraft',
  tag: 'Disputes',
  summary: "Draft a dispute's evidence from the service's own records",
  description:
    "Not in the spec; no anchor has it. Evidence drafted from what the service already keeps: the payment (amount, tip, capture time, card, its reference as Toast's check id), its refunds, the customer's other captured payments of the same amount within a day (for a duplicate) and, for a merchant-initiated charge, the mandate's recorded consent (its text version, when and how it was given). Read only: nothing is staged or submitted; post what you keep of `evidence` to the evidence operation. Server scope: it holds personal data.",
  access: { scope: SCOPE.serverWrite },
  params: disputeParamsSchema,
  responses: { 200: { description: 'The draft.', schema: evidenceDraftSchema } },
  errors: ['DISPUTE_NOT_FOUND'],
  handle: async ({ db, location, params }, { disputeEvidence, disputes, paymentIntents, refunds }) => ({
    status: 200,
    body: await disputeEvidence.draft(db, location, params.id, { disputes, paymentIntents, refunds }),
  }),
});

export const disputeEvidenceOperations = [getDisputeEvidenceDraft];
