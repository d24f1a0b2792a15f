// Signing with GnuPG. The key is the one in $TOLLGATE_RELEASE_GPG_HOME (a GnuPG home holding the release's secret
// key; $TOLLGATE_RELEASE_GPG_KEY picks one when it holds several, $TOLLGATE_RELEASE_GPG_PASSPHRASE unlocks it in
// batch mode), or else a throwaway key generated for this run in a temporary home that is deleted afterwards: such a
// release verifies against its own signing-key.asc only, which is what tests need and what a real release must not use.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function gpg(home, args, input) {
  const r = spawnSync('gpg', ['--batch', '--no-tty', '--homedir', home, ...args], { encoding: 'utf8', input });
  if (r.error?.code === 'ENOENT') throw new Error('gpg is not installed (Debian: apt-get install -y gnupg)');
  if (r.status !== 0) throw new Error(`gpg ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}

/** Opens the signing key: { fingerprint, throwaway, sign(file, sigFile), exportPublic() → armored text, close() }. */
export function openSigningKey() {
  const configured = process.env.TOLLGATE_RELEASE_GPG_HOME;
  const home = configured || mkdtempSync(join(tmpdir(), 'tollgate-gpg-'));
  const throwaway = !configured;
  if (throwaway) {
    chmodSync(home, 0o700);
    gpg(home, ['--passphrase', '', '--quick-gen-key', `Tollgate release (throwaway key, ${new Date().toISOString().slice(0, 10)}) <release@tollgate.invalid>`, 'rsa3072', 'sign', 'never']);
  }
  const fingerprint = process.env.TOLLGATE_RELEASE_GPG_KEY || firstSecretKey(home);
  const passphrase = process.env.TOLLGATE_RELEASE_GPG_PASSPHRASE;
  const unlock = passphrase === undefined ? [] : ['--pinentry-mode', 'loopback', '--passphrase-fd', '0'];
  return {
    fingerprint,
    throwaway,
    sign: (file, sigFile) => gpg(home, [...unlock, '--yes', '--local-user', fingerprint, '--detach-sign', '--output', sigFile, file], passphrase),
    exportPublic: () => gpg(home, ['--armor', '--export', fingerprint]),
    close: () => {
      // The agent gpg started for this home would outlive us; a configured home keeps its own agent.
      if (!throwaway) return;
      spawnSync('gpgconf', ['--homedir', home, '--kill', 'all']);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

function firstSecretKey(home) {
  const lines = gpg(home, ['--list-secret-keys', '--with-colons']).split('\n');
  const sec = lines.findIndex((l) => l.startsWith('sec:'));
  const fpr = sec >= 0 ? lines.slice(sec).find((l) => l.startsWith('fpr:')) : undefined;
  if (!fpr) throw new Error(`no secret key in ${home}`);
  return fpr.split(':')[9];
}
