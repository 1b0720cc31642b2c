import { defineModule } from '../../api/module';
import { DisputeEvidenceFlow } from './dispute-evidence.flow';
import { disputeEvidenceOperations } from './dispute-evidence.operations';

/** A dispute's evidence drafted from the records of the payment, its refunds, the customer's payments and the mandate: it reads four features. */
export const disputeEvidenceModule = defineModule({
  key: 'disputeEvidence',
  folder: 'flows/dispute-evidence',
  layer: 'flow',
  build: () => new DisputeEvidenceFlow(),
  operations: disputeEvidenceOperations,
});
