import { createLogger } from '../../../src/platform/logger';

describe('the logger', () => {
  it('redacts credentials, session secrets and card fields at the top level and one level down', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(line) } });
    const secrets = {
      authorization: 'Bearer top-level-token',
      clientSecret: 'top-level-client-secret',
      sessionSecret: 'PI_x_SECRET_top',
      card: { number: '4242424242424242' },
      cvv: '123',
    };
    logger.info({ ...secrets, nested: { ...secrets, accessToken: 'nested-token' } }, 'careless');
    const written = lines.join('');
    for (const value of ['top-level-token', 'top-level-client-secret', 'PI_x_SECRET_top', '4242424242424242', '"123"', 'nested-token']) {
      expect(written).not.toContain(value);
    }
    expect(written).toContain('[REDACTED]');
  });
});
