import { unreadableFileMessage } from '../../../src/platform/config-files';

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
