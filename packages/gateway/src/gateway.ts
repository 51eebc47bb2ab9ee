// The composition root: opens the store, builds the core services, reaches every provider's upstream (starting an
// in-process sandbox where none is configured), and assembles the HTTP app. `gateway serve` and the tests use it.
import type { FastifyInstance, FastifyServerOptions } from "fastify";
import type { GatewayConfig } from "./config.ts";
import { Accounts } from "./core/accounts.ts";
import { ApiKeys } from "./core/api-keys.ts";
import { type Clock, systemClock } from "./core/clock.ts";
import { createConnectionServices } from "./core/connections/setup.ts";
import { CursorSeal } from "./core/crypto/cursor-seal.ts";
import { refuseUnusableMasterKey } from "./core/crypto/master-key.ts";
import { resolveCheckedMasterKey } from "./core/crypto/master-key-check.ts";
import { MasterKeyWatch } from "./core/crypto/master-key-watch.ts";
import { SecretBox } from "./core/crypto/secret-box.ts";
import { DatabaseClock } from "./core/database-clock.ts";
import { ResourceCopies } from "./core/resources/resource-copies.ts";
import type { CoreServices } from "./core/services.ts";
import type { HostResolver } from "./core/webhooks/resolver.ts";
import { createWebhookServices } from "./core/webhooks/service.ts";
import { buildApp } from "./http/app.ts";
import { connectRoutes } from "./http/connect/routes.ts";
import { createConsole } from "./http/console/index.ts";
import { hooksRoutes } from "./http/hooks.ts";
import { createMetrics, type Metrics } from "./http/metrics.ts";
import type { Readiness } from "./http/operator.ts";
import { createRequestGuards, type RequestGuards } from "./http/request-guards.ts";
import { lateLog } from "./late-log.ts";
import { Registry } from "./providers/registry.ts";
import type { ProviderDefinition } from "./providers/types.ts";
import { openStore, type Store, type StoreOptions } from "./store/database.ts";
import { lockServing } from "./store/serving-lock.ts";
import { createUpstreamClients } from "./upstream-clients.ts";
import { hookSecretsFor, misnamedProviderSetting, missingUpstreams, startUpstreams } from "./upstreams.ts";

export interface Gateway {
  app: FastifyInstance;
  core: CoreServices;
  registry: Registry;
  metrics: Metrics;
  /** Rate limiter and idempotency records of the /v1 surface. */
  guards: RequestGuards;
  /** Base URL of each provider's upstream (sandbox or configured). */
  upstreamUrls: Record<string, string>;
  /** Starts listening; answers the bound URL. */
  listen(): Promise<string>;
  /** Marks the node as stopping: it serves on, but /readyz answers that it is shutting down (close() does too). */
  stopping(): void;
  close(): Promise<void>;
}

export interface GatewayOptions {
  config: GatewayConfig;
  /** Replaces the gateway's time (tests move it by hand); otherwise the database server's on PostgreSQL. */
  clock?: Clock;
  logger?: FastifyServerOptions["logger"];
  /** PostgreSQL schema (tests isolate themselves this way). */
  storeSchema?: string;
  /** Replaces the registry's provider list (tests add providers of their own). */
  providers?: readonly ProviderDefinition[];
  /** Replaces DNS for webhook delivery (tests simulate DNS rebinding with it). */
  webhookResolver?: HostResolver;
}

export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { config } = options;
  const registry = new Registry(options.providers);
  // Whatever the configuration alone can refuse is refused before anything is created in the data directory.
  const misnamed = misnamedProviderSetting(registry.providers, config);
  if (misnamed) throw new Error(misnamed);
  const missing = missingUpstreams(registry.providers, config);
  if (missing) throw new Error(missing);
  refuseUnusableMasterKey(config);
  const log = lateLog();
  const storeOptions: StoreOptions = {
    databaseUrl: config.databaseUrl,
    preparedStatements: config.preparedStatements,
    timeoutMs: config.databaseTimeoutMs,
    dataDir: config.dataDir,
    // A serving gateway on SQLite never waits for a checkpoint of the write-ahead log (store/checkpointer.ts).
    backgroundCheckpoints: {
      onError: (error, restartInMs) =>
        log.error(
          { err: error, restart_in_ms: restartInMs },
          "background checkpoints stopped; SQLite checkpoints on commit until the worker restarts",
        ),
    },
    onConnectionError: (error) =>
      log.warn({ err: error }, "a PostgreSQL connection failed; the pool opens a new one when needed"),
  };
  if (options.storeSchema) storeOptions.schema = options.storeSchema;
  // On SQLite, one process runs the webhook worker (store/serving-lock.ts).
  const lock = !config.databaseUrl && config.webhookWorker ? lockServing(config.dataDir) : undefined;
  let store: Store;
  try {
    store = openStore(storeOptions);
  } catch (error) {
    lock?.release();
    throw error;
  }
  // Closed in reverse order: the store, then the lock.
  const closers: (() => Promise<void>)[] = [async () => lock?.release(), () => store.close()];
  try {
    await store.migrate();
    const clock = await gatewayClock(options.clock, store, log);
    if (clock instanceof DatabaseClock) closers.push(async () => clock.stop());
    const metrics = createMetrics();
    const masterKey = await resolveCheckedMasterKey(store.db, clock, config);
    const secretBox = new SecretBox(masterKey.key, masterKey.previous);
    // The start's check, again while the node serves: a rotation can move the store to a key this node lacks.
    const masterKeys = new MasterKeyWatch(store.db, masterKey, log);
    const webhooks = createWebhookServices({
      store,
      clock,
      secretBox,
      masterKeys,
      settings: {
        allowPrivate: config.webhookAllowPrivate,
        timeoutMs: config.webhookTimeoutMs,
        pollIntervalMs: config.webhookPollIntervalMs,
        leaseMs: config.webhookLeaseMs,
        concurrency: config.webhookConcurrency,
        endpointConcurrency: config.webhookEndpointConcurrency,
        userAgent: "ProviderGateway-Webhooks/1.0",
        resolve: options.webhookResolver,
      },
      log,
      onAttempt: (ok) => metrics.webhookAttempts.inc({ outcome: ok ? "succeeded" : "failed" }),
    });
    closers.push(webhooks.close);
    const core: CoreServices = {
      store,
      clock,
      accounts: new Accounts(store.db, clock),
      apiKeys: new ApiKeys(store.db, clock, config.keyCacheTtlMs, registry.providers),
      publicUrl: config.publicUrl,
      secretBox,
      cursors: new CursorSeal(masterKey.key, masterKey.previous),
      events: webhooks.events,
      webhooks: { endpoints: webhooks.endpoints, deliveries: webhooks.deliveries },
      resources: new ResourceCopies(store.db, clock),
    };
    let listeningUrl: string | undefined;
    const hookSecrets = hookSecretsFor(registry.providers, config);

    const upstreams = await startUpstreams(registry.providers, config, (providerId) => {
      const secret = hookSecrets[providerId];
      return secret === undefined
        ? undefined
        : { url: () => `${listeningUrl ?? config.publicUrl}/hooks/${providerId}`, secret };
    });
    closers.push(upstreams.close);
    const clients = createUpstreamClients(registry, upstreams.urls, config.upstreamTimeoutMs, metrics);
    closers.push(clients.close);
    const upstream = clients.of;
    const connectionServices = createConnectionServices({
      store,
      clock,
      secretBox,
      masterKeys,
      events: webhooks.events,
      publicUrl: config.publicUrl,
      providers: registry.providers,
      upstreamUrls: upstreams.urls,
      oauthClients: config.oauthClients,
      timeoutMs: config.upstreamTimeoutMs,
      log,
    });
    // Token refreshes under way end before the upstreams and the store close (their tokens are kept); none starts
    // once the node is stopping: close() stops them before requests drain, and this closer waits for the rest.
    const stopRefreshes = () => connectionServices.connections.stop();
    closers.push(connectionServices.stopPurge, stopRefreshes);
    core.connections = connectionServices.connections;
    core.connectSessions = connectionServices.connectSessions;

    const guards = await createRequestGuards({
      config,
      store,
      clock,
      metrics,
      log,
    });
    closers.push(guards.close);
    const consoleSurface = createConsole({
      config,
      core,
      registry,
      upstream,
      masterKey: masterKey.key,
      previousMasterKeys: masterKey.previous,
      limiter: guards.limiter,
    });
    closers.push(consoleSurface.close);

    const readiness: Readiness = { stopping: false, masterKeys };
    const app = await buildApp({
      readiness,
      core,
      registry,
      metrics,
      upstream,
      logger: options.logger ?? false,
      trustProxy: config.trustProxy,
      requestTimeoutMs: config.requestTimeoutMs,
      keepAliveTimeoutMs: config.keepAliveTimeoutMs,
      sendTimeoutMs: config.sendTimeoutMs,
      answerHalfClosed: config.answerHalfClosed,
      v1Extensions: guards.extensions,
      tokenResolvers: consoleSurface.tokenResolvers,
      observers: consoleSurface.observers,
      plugins: [
        connectRoutes({ core, registry }),
        hooksRoutes({
          core,
          registry,
          hookSecret: (providerId) => hookSecrets[providerId],
          upstream,
        }),
        ...consoleSurface.plugins,
      ],
    });
    log.bind(app.log);
    if (masterKey.warning) app.log.warn(masterKey.warning);
    if (config.webhookWorker) webhooks.worker.start();

    return {
      app,
      core,
      registry,
      metrics,
      guards,
      upstreamUrls: upstreams.urls,
      async listen() {
        listeningUrl = await app.listen({ host: config.host, port: config.port });
        return listeningUrl;
      },
      stopping() {
        readiness.stopping = true;
      },
      async close() {
        readiness.stopping = true;
        void stopRefreshes();
        await app.close();
        for (const close of closers.reverse()) await close();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => {});
    throw error;
  }
}

/**
 * Several nodes on PostgreSQL compare the times they write with each other's: they all take it from the database
 * server (core/database-clock.ts). A lone node on SQLite has its machine's clock.
 */
async function gatewayClock(given: Clock | undefined, store: Store, log: ReturnType<typeof lateLog>): Promise<Clock> {
  if (given) return given;
  if (store.kind !== "postgres") return systemClock;
  return DatabaseClock.start(store.db, (error) =>
    log.warn({ err: error }, "reading PostgreSQL's clock failed; the gateway keeps the time it read last"),
  );
}
