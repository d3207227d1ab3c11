#!/usr/bin/env node
// Starts a webhook delivery worker. Run as many as needed: claims are leased, so no delivery is
// sent by two workers at once. A database that is unreachable (at start or later) is waited for
// with backoff; the process never exits for it. SIGTERM/SIGINT finish the round in flight, then exit.
// The steps are runDatabaseService's (@pits/service-runtime); what is the worker's is here.
import { createCredentialCipher, serviceDatabase } from '@pits/persistence';
import { createOperatorServer, runDatabaseService } from '@pits/service-runtime';
import { loadWebhookWorkerConfig } from './config.js';
import { webhookMetrics } from './webhook-metrics.js';
import { createWebhookWorker } from './webhook-worker.js';

void runDatabaseService({
  app: 'webhook-worker',
  loadConfig: () => loadWebhookWorkerConfig(process.env),
  database: serviceDatabase,
  build({ config, logger, metrics, database }) {
    metrics.watchDatabase(database);
    const worker = createWebhookWorker({
      database,
      cipher: createCredentialCipher(config.credentialsKey),
      logger,
      pollMs: config.pollMs,
      timeoutMs: config.timeoutMs,
      concurrency: config.concurrency,
      batchSize: config.batchSize,
      leaseMs: config.leaseMs,
      allowPrivateUrls: config.allowPrivateUrls,
      metrics: webhookMetrics(metrics.registry, database),
    });
    // The operator port is its only port: a worker whose metrics port is taken says so at once.
    const operator = config.metrics ? createOperatorServer(metrics, config.metrics) : null;
    let metricsUrl: string | null = null;
    return {
      messages: { listenFailed: 'cannot listen on the metrics port', databaseUnavailable: 'database not reachable yet', stopping: 'webhook worker stopping', stopped: 'webhook worker stopped' },
      async listen() {
        metricsUrl = operator ? (await operator.listen()).url : null;
      },
      ready() {
        worker.start();
        logger.info(
          { worker_id: worker.workerId, database: database.description, allow_private_urls: config.allowPrivateUrls, metrics_url: metricsUrl ?? 'off (set WEBHOOK_WORKER_METRICS_PORT)' },
          'webhook worker started',
        );
      },
      // The round in flight first, then the metrics port (a scrape may come until the last delivery is recorded).
      stop: async () => {
        await worker.stop();
        await operator?.close();
      },
    };
  },
});
