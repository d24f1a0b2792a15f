// The `tollgate` command: serve, admin, operator, gen. Returns the process exit code.
import { ConfigError, loadConfig, workerCount, type Config, type Role } from '../config/config.ts';
import { servedHostNames } from '../gateway/host-check.ts';

const USAGE = `usage:
  tollgate serve [--role all|api|gateway] [--workers N|auto]
                                  --workers: the gateway in N processes on one port (docs/scaling.md)
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

/**
 * `--workers` (else TOLLGATE_GATEWAY_WORKERS). More than one needs the shared datastores: the embedded database and
 * the in-process state belong to one process, and each worker is a gateway replica of its own.
 */
function parseWorkers(args: string[], role: Role, config: Config): number {
  const i = args.indexOf('--workers');
  const name = i >= 0 ? '--workers' : 'TOLLGATE_GATEWAY_WORKERS';
  const n = i >= 0 ? workerCount(args[i + 1] ?? '', '--workers') : config.gatewayWorkers;
  if (n === 1) return 1;
  if (role === 'api') throw new ConfigError(name, 'runs gateway workers; the api role has none (use --role gateway or all)');
  if (!config.databaseUrl || !config.redis) {
    throw new ConfigError(name, 'more than one gateway worker needs DATABASE_URL and REDIS_URL (or a Redis Sentinel or Cluster): the embedded datastores belong to one process');
  }
  return n;
}

/** Runs `fn`; a start failure an operator must act on becomes its one line and exit code 1. */
async function startFailureExit(fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (err) {
    const line = err instanceof Error && err.name === 'WorkerStartFailed' ? err.message : await startFailureLine(err);
    if (line === undefined) throw err;
    process.stderr.write(`tollgate: ${line}\n`);
    return 1;
  }
}

/** A gateway worker of `serve --workers`, or the primary that runs them; undefined when there are no workers. */
async function serveWorkers(args: string[], role: Role, config: Config): Promise<number | undefined> {
  const { WORKER_ENV } = await import('../workers/messages.ts');
  const isWorker = process.env[WORKER_ENV] === '1';
  const workers = isWorker ? 1 : parseWorkers(args, role, config);
  if (!isWorker && workers === 1) return undefined;
  const { startTollgate } = await import('../app.ts');
  if (isWorker) {
    const { runGatewayWorker } = await import('../workers/worker.ts');
    return startFailureExit(() => runGatewayWorker(config, (c) => startTollgate(c, { role: 'gateway' })));
  }
  const { serveWithWorkers } = await import('../workers/primary.ts');
  return startFailureExit(() => serveWithWorkers(config, role, workers, (c, r, gatewayAdminUrl) => startTollgate(c, { role: r, gatewayAdminUrl })));
}

async function serve(args: string[]): Promise<number> {
  const role = parseRole(args);
  const config = loadConfig();
  return (await serveWorkers(args, role, config)) ?? (await serveOne(role, config));
}

/** Both roles or one of them in this process. */
async function serveOne(role: Role, config: Config): Promise<number> {
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
