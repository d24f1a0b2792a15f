// The `tollgate` command: serve, admin, operator, gen. Returns the process exit code.
import { ConfigError, loadConfig, type Role } from '../config/config.ts';
import { servedHostNames } from '../gateway/host-check.ts';

const USAGE = `usage:
  tollgate serve [--role all|api|gateway]
  tollgate admin user create --email E [--name N] [--password P]
  tollgate admin user tags --email E [--add TAG]... [--remove TAG]...
  tollgate admin user password --email E (--password P | --password-stdin)
  tollgate admin token issue --email E
  tollgate operator [--allowed-api-urls URL,...]
                                  the Kubernetes operator (KUBECONFIG or in-cluster; docs/kubernetes.md)
  tollgate gen [--check]          regenerate (or check) docs/openapi.json and other generated files
  tollgate version | --version    the version, and whether the compiled build or the sources are running`;

/** What the `tollgate` entry point loaded: the compiled build of `npm run build`, or the sources through tsx. */
export type Runtime = 'compiled' | 'sources';

export async function main(argv: string[], runtime: Runtime = 'sources'): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    return await dispatch(cmd, rest, runtime);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`tollgate: configuration error: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

async function dispatch(cmd: string | undefined, rest: string[], runtime: Runtime): Promise<number> {
  switch (cmd) {
    case 'version':
    case '--version':
      return await version(runtime);
    case 'serve':
      return await serve(rest);
    case 'admin': {
      const { runAdmin } = await import('./admin.ts');
      return await runAdmin(rest, loadConfig());
    }
    case 'operator': {
      // A variable specifier: the operator is its own workspace package, loaded (from its sources) only here.
      const specifier = '@tollgate/operator/load';
      const { loadOperator } = (await import(specifier)) as { loadOperator(): Promise<{ runOperator(env: NodeJS.ProcessEnv, argv: string[]): Promise<number> }> };
      return await (await loadOperator()).runOperator(process.env, rest);
    }
    case 'gen': {
      const { runGen } = await import('./gen.ts');
      return await runGen(rest);
    }
    case undefined:
    case '-h':
    case '--help':
      process.stdout.write(USAGE + '\n');
      return cmd ? 0 : 2;
    default:
      process.stderr.write(`tollgate: unknown command "${cmd}"\n${USAGE}\n`);
      return 2;
  }
}

async function version(runtime: Runtime): Promise<number> {
  const { PACKAGE_VERSION } = await import('../version.ts');
  const from = runtime === 'compiled' ? 'compiled build in server/dist' : 'TypeScript sources through tsx';
  process.stdout.write(`tollgate ${PACKAGE_VERSION} (${from}, node ${process.version})\n`);
  return 0;
}

function parseRole(args: string[]): Role {
  const i = args.indexOf('--role');
  const v = i >= 0 ? args[i + 1] : 'all';
  if (v !== 'all' && v !== 'api' && v !== 'gateway') throw new ConfigError('--role', `must be all, api or gateway, got "${v}"`);
  return v;
}

/**
 * The one line for a start failure an operator must act on (not a bug): a gateway next to a database of another
 * data-plane version, or data sealed with another master key (docs/gitops.md). Undefined for anything else.
 */
async function startFailureLine(err: unknown): Promise<string | undefined> {
  const { SnapshotSchemaMismatch } = await import('../snapshot/schema-version.ts');
  if (err instanceof SnapshotSchemaMismatch) return err.message;
  const { WrongMasterKey } = await import('../crypto/secrets.ts');
  if (err instanceof WrongMasterKey) {
    return `${err.message}: start with the master key the data was written with (TOLLGATE_MASTER_KEY, or the chart's masterKey Secret)`;
  }
  return undefined;
}

async function serve(args: string[]): Promise<number> {
  const role = parseRole(args);
  const config = loadConfig();
  const { startTollgate } = await import('../app.ts');
  const { bootstrapAdmin } = await import('./bootstrap.ts');
  let release = () => undefined as void;
  if (!config.databaseUrl && role !== 'gateway') {
    const { acquireDataDirLock, DataDirBusy } = await import('./data-dir-lock.ts');
    try {
      release = acquireDataDirLock(config.dataDir, 'serve');
    } catch (err) {
      if (!(err instanceof DataDirBusy)) throw err;
      process.stderr.write(`tollgate: ${err.message}\n`);
      return 1;
    }
  }
  // Listening for a stop before starting: a SIGTERM that comes while the process starts (an orchestrator that gave up
  // waiting) still closes it cleanly once it has started, rather than killing it mid-start.
  const stopped = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  let app;
  try {
    app = await startTollgate(config, { role });
  } catch (err) {
    release();
    const line = await startFailureLine(err);
    if (line === undefined) throw err;
    process.stderr.write(`tollgate: ${line}\n`);
    return 1;
  }
  const { log } = app.services;
  if (!config.databaseUrl && role !== 'gateway') await bootstrapAdmin(app.services, app.apiUrl);
  if (app.apiUrl) log.info('management API listening', { url: app.apiUrl });
  if (app.gateway) {
    log.info('gateway listening', {
      url: app.gateway.url, admin: app.gateway.adminUrl, proxyDomain: config.proxyDomain,
      // DNS-rebinding protection: any other Host is refused with 403 (docs/gateway.md).
      hosts: servedHostNames({ proxyDomain: config.proxyDomain, host: config.host, publicHosts: config.gatewayPublicHosts }),
    });
  }
  const { startAdminEndpoint } = await import('./admin-endpoint.ts');
  const stopAdmin = !config.databaseUrl ? await startAdminEndpoint(app.services) : async () => undefined;
  log.info('shutting down', { signal: await stopped });
  await stopAdmin();
  await app.close();
  release();
  return 0;
}
