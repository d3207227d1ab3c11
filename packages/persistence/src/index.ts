// Public surface of @pits/persistence: opening and migrating a database, the use cases (src/use-cases:
// each business flow, such as a hold's create or an adjustment's approval, one transaction that
// locks, asks the domain, writes and raises its events) and the reads the apps call, which take and
// return records (never rows). Row locks, query preparation,
// row mappers and the dialect internals stay inside the package; test helpers are on ./testing,
// the benchmarks' driver access on ./bench.

// Opening, configuration, migrations, transactions
export {
  type DatabaseConfig,
  type DatabaseDeadlines,
  type Dialect,
  type DialectName,
  DATABASE_URL_FORMS,
  DEFAULT_DATABASE_DEADLINES,
  deadlinesOf,
  databaseIdentity,
  describeDatabase,
  parseDatabaseUrl,
} from './database-config.js';
export { type Database, type DatabaseConnections, type DatabaseEvents, createDatabase, isDatabaseReachable, scopeOf } from './create-database.js';
export {
  DATABASE_ERROR_KINDS,
  type DatabaseErrorKind,
  DatabaseUnavailableError,
  classifyDatabaseError,
  isCheckViolation,
  isDatabaseUnavailable,
  isTransientConflict,
  isUniqueViolation,
} from './database-errors.js';
export { dialectNamed } from './dialects/dialect-registry.js';
export type { DialectCapabilities, SqlDialect } from './dialects/sql-dialect.js';
export { migrateOrThrow, migrateTo, migrateToLatest, migrateWhenReachable, migrationStatus } from './migrate.js';
export { serviceDatabase } from './service-database.js';
export { type CallerDeadline, CommittedRefusal, type Scope, type Tx, withSession, withTransaction } from './transaction.js';
export type { AreaRegionLevel, InstallationType, PartnerTier, StockCauseType } from './schema/index.js';
export { type CredentialCipher, createCredentialCipher, maskSecret } from './credential-cipher.js';

// Partners, keys, tenants, installations, consent
export { type PartnerRecord, createPartner, findPartner, getPartner, listPartners, partnerActor, setPartnerTier } from './repositories/partner-repository.js';
export {
  type ApiKeyEnvironment,
  type ApiKeyRecord,
  type InstallationState,
  type KeyOwner,
  type ResolvedApiKey,
  createApiKey,
  findKeyOwner,
  listApiKeys,
  resolveApiKey,
  revokeApiKey,
  rotateApiKey,
} from './repositories/api-key-repository.js';
export { type TenantRecord, createTenant, findTenant, getTenant, listTenants } from './repositories/tenant-repository.js';
export { type InstallationRecord, authorizeTenant, deauthorizeTenant, installationState, listConnectedInstallations } from './repositories/installation-repository.js';
export { ACCESS_WITHDRAWN_REASON, type InstallationGrantRecord, grantAccess, listGrants, withdrawAccess } from './repositories/installation-grant-repository.js';
export {
  type LogisticCredentials,
  type LogisticPreferenceView,
  type NewLogisticPreference,
  createLogisticPreference,
  listLogisticPreferences,
  updateLogisticPreference,
} from './repositories/logistic-preference-repository.js';

// Catalogue
export { type LocationChanges, type LocationRecord, type NewLocation, createLocation, findTenantLocation, listLocations, updateLocation } from './repositories/location-repository.js';
export {
  type LineProduct,
  type NewProduct,
  type ProductChanges,
  type ProductFilters,
  type ProductRecord,
  createProduct,
  findProduct,
  findProductBySku,
  listProducts,
  lotTrackingInUse,
  updateProduct,
} from './repositories/product-repository.js';
export { requireTenantLocation, requireTenantProducts } from './use-cases/catalogue-checks.js';
export { type ProductBatchResult, type ProductImportRow, upsertProductBatch } from './repositories/product-import-repository.js';

// Stock
export { type LedgerMismatch, type StockCause, findLedgerMismatches, readStockLevels } from './repositories/stock-repository.js';
export { type OpeningStockInput, recordOpeningStock } from './use-cases/stock-operations.js';
export {
  type OpeningStockBatchResult,
  type OpeningStockImportRow,
  importOpeningStockBatch,
  openingImportReference,
} from './use-cases/stock-import-operations.js';
export {
  type StockLevelFilters,
  type StockLevelView,
  type StockLotFilters,
  type StockLotView,
  listStockLots,
  type StockMovementFilters,
  type StockMovementView,
  decodeMovementCursor,
  encodeMovementCursor,
  listStockLevels,
  listStockMovements,
} from './repositories/stock-read-repository.js';

export { type StockCheck, type StockDiscrepancy, verifyStock } from './repositories/stock-verification.js';

// Lots and expiry dates (docs/lots.md)
export { type LotRecord, type StoredAllocation, databaseToday, findLots, moveCalendar, redateLots } from './repositories/lot-repository.js';
export { type LotBoundaryRun, announceLotBoundaries } from './use-cases/lot-boundary-operations.js';

// Order holds (reservations)
export {
  type DueCursor,
  type ReservationFilters,
  type ReservationItemRecord,
  type ReservationRecord,
  databaseNow,
  dueHoldBacklog,
  findReservation,
  listReservations,
} from './repositories/reservation-repository.js';
export {
  type CreateReservationInput,
  type ExpiryPass,
  type ExpiryRun,
  type ReservationActionInput,
  type SetAsideHold,
  consumeReservation,
  createReservation,
  expireAllDue,
  expireDueReservations,
  extendReservation,
  releaseReservation,
} from './use-cases/reservation-operations.js';

// Adjustments, transfers, inbound shipments
export {
  type AdjustmentFilters,
  type AdjustmentItemRecord,
  type AdjustmentLocation,
  type AdjustmentRecord,
  type AdjustmentSummary,
  type AdjustmentWithItems,
  findAdjustment,
  listAdjustments,
} from './repositories/adjustment-repository.js';
export {
  type AdjustmentActionInput,
  type ApprovalDecision,
  type CreateAdjustmentInput,
  approveAdjustment,
  createAdjustment,
  rejectAdjustment,
  recordStockCount,
  type StockCountInput,
  type StockCountResult,
} from './use-cases/adjustment-operations.js';
export {
  type TransferFilters,
  type TransferItemRecord,
  type TransferLocation,
  type TransferRecord,
  type TransferWithItems,
  findTransfer,
  listTransfers,
} from './repositories/transfer-repository.js';
export {
  type CreateTransferInput,
  type TransferActionInput,
  approveTransfer,
  createTransfer,
  receiveTransfer,
  rejectTransfer,
  shipTransfer,
} from './use-cases/transfer-operations.js';
export { type InboundDetailRecord, type InboundFilters, type InboundRecord, findInbound, listInbounds } from './repositories/inbound-repository.js';
export { type ListCountMismatch, type ListCountRepair, findListCountMismatches, recountListCounts, repairListCounts } from './repositories/list-count-repository.js';
export { type CreateInboundInput, type ReceiptInput, type ReceiveResult, cancelInbound, createInbound, receiveInbound } from './use-cases/inbound-operations.js';

// Areas
export {
  AREA_FIELDS,
  type AreaBatchOptions,
  type AreaBatchResult,
  type AreaField,
  type AreaImportRow,
  type AreaKeptField,
  type AreaRecord,
  type AreaSearch,
  type AreaSearchLevel,
  findArea,
  hasAreas,
  searchAreas,
  upsertAreaBatch,
} from './repositories/areas/area-repository.js';

// Idempotency, webhooks, retention, demo data
export {
  DEFAULT_IDEMPOTENCY_TIMINGS,
  type IdempotencyClaim,
  type IdempotencyTimings,
  abandonIdempotencyKey,
  claimIdempotencyKey,
  completeIdempotencyKey,
} from './repositories/idempotency-repository.js';
export {
  type WebhookEndpointRecord,
  type WebhookEventType,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookEndpoints,
  type WebhookEndpointChange,
  updateWebhookEndpoint,
} from './repositories/webhook-endpoint-repository.js';
export { type EventInput } from './repositories/event-outbox-repository.js';
export {
  type AttemptOutcome,
  type ClaimedDelivery,
  type DeliveryView,
  claimDueDeliveries,
  countPendingDeliveries,
  PENDING_DELIVERIES_COUNT_CAP,
  listDeliveries,
  recordDeliveryAttempt,
  redeliver,
} from './repositories/webhook-delivery-repository.js';
export { createTestDelivery } from './use-cases/webhook-test-operations.js';
export { DEFAULT_RETENTION, type PurgeCounts, type RetentionSettings, purgeExpiredRecords } from './repositories/retention-repository.js';
export {
  DEMO_PRODUCTS, type DemoData, type DemoOptions, demoCredentialsFileName, demoCredentialsWork, isDatabaseEmpty, seedDemoData,
} from './use-cases/demo-data.js';
