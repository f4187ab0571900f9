import { KeychainSecretStore } from '../secrets/keychain-secret-store.ts';

/**
 * The provider secrets: the secrets file's variables under the environment's (a variable set in the
 * environment wins, as with dotenv), and the OS keychain on a desktop. A team's replica or a
 * server with a secrets file never opens a keychain: its secrets come from the file and the
 * environment, and a keychain would be a second place to keep them in and leak them from.
 * The log names where they came from, never a value.
 */
export function openProviderSecrets(options: {
  env: NodeJS.ProcessEnv;
  file: { path: string; secrets: Record<string, string> } | null;
  team: boolean;
  keychainService?: string;
  log: (message: string) => void;
}): KeychainSecretStore {
  const { file } = options;
  const noKeychain = file || options.team
    ? ({ keychain: false, why: `This Patchbay takes provider secrets from ${file ? `its secrets file (${file.path}) and ` : ''}its environment, not from a keychain: add NAME=value there and restart it.` } as const)
    : {};
  const secrets = new KeychainSecretStore({ ...file?.secrets, ...options.env }, options.keychainService, noKeychain);
  if (file) options.log(`Provider secrets from ${file.path}: ${Object.keys(file.secrets).join(', ') || 'none'}.`);
  const keychainNotice = secrets.unavailableNotice();
  if (keychainNotice) options.log(keychainNotice);
  return secrets;
}
