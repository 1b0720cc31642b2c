import { exercisedOperations, takeContractViolations } from './contract-recorder';
import { writeTestFileRecord } from './contract-run';

// Runs in every test file (jest's setupFilesAfterEnv).

afterEach(() => {
  const violations = takeContractViolations();
  if (violations.length > 0) {
    throw new Error(`Responses that break the OpenAPI document:\n${violations.map((line) => `  - ${line}`).join('\n')}`);
  }
});

afterAll(() => {
  writeTestFileRecord({ testPath: expect.getState().testPath ?? 'unknown', operations: [...exercisedOperations] });
});
