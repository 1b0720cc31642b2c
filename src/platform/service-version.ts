import packageJson from '../../package.json';

/**
 * This build's own version (package.json, recorded in CHANGELOG.md): what an
 * operator deployed. Not the API's version, which is the contract's (the
 * document's info.version) and changes only when the contract does.
 */
export const SERVICE_VERSION: string = packageJson.version;
