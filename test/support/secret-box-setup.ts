import { SecretBox, useSecretBox, withNewKey } from '../../src/platform/secrets/secret-box';

// Every test file's repositories seal secrets as the service does (server.ts sets its keyring at start-up): a random keyring per test process.
useSecretBox(new SecretBox(withNewKey()));
