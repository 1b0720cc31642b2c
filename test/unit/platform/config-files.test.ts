import { refuseUnreadableConfigFiles, unreadableFileMessage } from '../../../src/platform/config-files';

/** Issue 38: a secret file made 0600 by root and mounted into the container (uid 1000) failed with a bare EACCES. */
describe('unreadableFileMessage', () => {
  it('names the setting, the file, the uid the service runs as and the fix for a file it may not read', () => {
    const denied = Object.assign(new Error("EACCES: permission denied, open '/run/secrets/signing-key.json'"), { code: 'EACCES' });
    const message = unreadableFileMessage('AUTH_SIGNING_KEY_FILE', '/run/secrets/signing-key.json', denied);
    expect(message).toContain('AUTH_SIGNING_KEY_FILE /run/secrets/signing-key.json');
    expect(message).toMatch(new RegExp(`uid ${process.getuid?.()}.*chown ${process.getuid?.()} /run/secrets/signing-key.json.*chmod 640`));
  });

  it('says a missing file does not exist', () => {
    const missing = Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
    expect(unreadableFileMessage('AUTH_CLIENTS_FILE', '/run/secrets/clients.json', missing)).toBe(
      'AUTH_CLIENTS_FILE /run/secrets/clients.json does not exist: ENOENT: no such file or directory',
    );
  });
});

describe('refuseUnreadableConfigFiles', () => {
  /** What uid 1000 meets: the key tools' 0700 folder /srv/keys it may not enter, and a 0600 clients file of root's. */
  const asServiceUser = (file: string) => {
    if (file === '/srv/keys' || file === '/run/secrets/clients.json') {
      throw Object.assign(new Error(`EACCES: permission denied, access '${file}'`), { code: 'EACCES' });
    }
  };

  it('names the folder when the service may not enter it, not only the file', () => {
    const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const message = unreadableFileMessage('AUTH_SIGNING_KEY_FILE', '/srv/keys/signing-key.json', denied, asServiceUser);
    expect(message).toMatch(/may not enter the folder \/srv\/keys \(the key tools make their folders 0700\)/);
    expect(message).toMatch(/chmod 750 \/srv\/keys/);
  });

  it('reports every unreadable file at once, each with its fix', () => {
    let message = '';
    try {
      refuseUnreadableConfigFiles(
        {
          AUTH_SIGNING_KEY_FILE: '/srv/keys/signing-key.json',
          SECRETS_ENCRYPTION_KEY_FILE: '/srv/keys/keyring.json',
          AUTH_CLIENTS_FILE: '/run/secrets/clients.json',
          AUTH_PREVIOUS_KEYS_FILE: undefined,
        },
        (file, mode) => {
          asServiceUser(file);
          if (file.startsWith('/srv/keys/')) asServiceUser('/srv/keys');
          void mode;
        },
      );
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split('\n')).toEqual([
      '3 files cannot be read:',
      expect.stringMatching(/^- AUTH_SIGNING_KEY_FILE \/srv\/keys\/signing-key.json cannot be read: .*folder \/srv\/keys/),
      expect.stringMatching(/^- SECRETS_ENCRYPTION_KEY_FILE \/srv\/keys\/keyring.json cannot be read: .*folder \/srv\/keys/),
      expect.stringMatching(/^- AUTH_CLIENTS_FILE \/run\/secrets\/clients.json cannot be read: .*chown \d+ \/run\/secrets\/clients.json/),
    ]);
  });

  it('lets a start with readable files through', () => {
    expect(() =>
      refuseUnreadableConfigFiles({
        AUTH_SIGNING_KEY_FILE: __filename,
        AUTH_CLIENTS_FILE: undefined,
        AUTH_PREVIOUS_KEYS_FILE: undefined,
        SECRETS_ENCRYPTION_KEY_FILE: undefined,
      }),
    ).not.toThrow();
    expect(() =>
      refuseUnreadableConfigFiles({
        AUTH_SIGNING_KEY_FILE: '/no/such/file.json',
        AUTH_CLIENTS_FILE: undefined,
        AUTH_PREVIOUS_KEYS_FILE: undefined,
        SECRETS_ENCRYPTION_KEY_FILE: undefined,
      }),
    ).toThrow('AUTH_SIGNING_KEY_FILE /no/such/file.json does not exist');
  });
});
