// What the gateway sends to the database for each benchmarked endpoint, captured rather than
// assumed: the persistence functions the routes call run once on a database opened with an
// `onQuery` event, on the benchmark's database, and every statement text is recorded. The benchmark compares
// them with the bare routes' statements (inventory-sql.ts, generated from the same repositories'
// queries) before it measures anything: what they can still differ in is which statements a
// route runs, and in what order.
import {
  approveAdjustment,
  consumeReservation,
  createAdjustment,
  createReservation,
  createDatabase,
  findAdjustment,
  resolveApiKey,
  listAdjustments,
  recordStockCount,
} from '@pits/persistence';
import { type BenchDialect, type InventoryCase, authenticationStatement, plannedStatements } from './inventory-sql.js';
import type { SeedTenant } from './inventory-seed.js';

const TRANSACTION_CONTROL = /^(begin|commit|rollback)\b/i;

export interface CaptureSamples {
  tenant: SeedTenant;
  /** An existing adjustment of the tenant, for detail. */
  detailNumber: string;
  /** A pending increase adjustment of the tenant, consumed by approve. */
  approveNumber: string;
  /** Lines of the create body the benchmark sends. */
  createLines: number;
  /** Lines of the stock counts the benchmark sends. */
  countLines: number;
  /** Lines of the holds the reserve cases create and consume (reserve-lots: on the tenant's lot-tracked products). */
  reserveLines: number;
}

export interface SqlCheck {
  kind: InventoryCase | 'auth';
  lines: number;
  matches: boolean;
  gateway: string[];
  bare: string[];
}

/** Runs each endpoint's persistence calls once and compares the SQL with the bare routes'. */
export async function checkBareRoutesAgainstGateway(
  target: { dialect: 'sqlite'; location: string } | { dialect: 'postgres'; url: string },
  samples: CaptureSamples,
): Promise<SqlCheck[]> {
  let statements: string[] = [];
  const onQuery = (text: string) => {
    if (!TRANSACTION_CONTROL.test(text)) statements.push(text);
  };
  const scope = createDatabase({ ...target, poolSize: 2 }, { onQuery });
  const dialect: BenchDialect = target.dialect;
  const { tenant } = samples;
  const actor = { id: tenant.partnerId, name: tenant.partnerName, email: tenant.partnerEmail };
  const checks: SqlCheck[] = [];
  // The list runs its count and its page concurrently (Promise.all): on PostgreSQL they finish,
  // and are logged, in either order, so those two are compared as a set.
  const take = (kind: SqlCheck['kind'], lines: number, bare: string[], unordered = false) => {
    const order = (list: string[]) => (unordered ? [...list].sort() : list);
    const [got, want] = [order(statements), order(bare)];
    checks.push({ kind, lines, gateway: statements, bare, matches: got.length === want.length && got.every((s, i) => s === want[i]) });
    statements = [];
  };
  try {
    await resolveApiKey(scope, tenant.apiKey, tenant.tenantId);
    take('auth', 0, [authenticationStatement(dialect)]);

    const products = tenant.products.slice(0, samples.createLines);
    await createAdjustment(
      scope,
      {
        tenantId: tenant.tenantId,
        partnerId: tenant.partnerId,
        actor,
        locationId: tenant.locationIds[0],
        type: 'increase',
        stockSource: 'good',
        reason: 'bench SQL capture',
        items: products.map((p) => ({ productId: p.id, quantity: '1', unitCost: '10' })),
      },
      new Date(),
    );
    take('create', products.length, plannedStatements('create', dialect, products.length));

    // The detail route: findAdjustment, with its lines' stock in the same statement.
    const found = await findAdjustment(scope, tenant.tenantId, samples.detailNumber);
    if (!found) throw new Error(`adjustment ${samples.detailNumber} not found`);
    take('detail', found.items.length, plannedStatements('detail', dialect, found.items.length));

    await listAdjustments(scope, tenant.tenantId, {}, { page: 3, perPage: 10 });
    take('list', 0, plannedStatements('list', dialect, 0), true);
    await listAdjustments(scope, tenant.tenantId, { status: 'pending' }, { page: 1, perPage: 10 });
    take('list-status', 0, plannedStatements('list-status', dialect, 0), true);

    const pending = await findAdjustment(scope, tenant.tenantId, samples.approveNumber);
    statements = [];
    await approveAdjustment(scope, { tenantId: tenant.tenantId, number: samples.approveNumber, actor }, new Date());
    take('approve', pending?.items.length ?? 0, plannedStatements('approve', dialect, pending?.items.length ?? 0));

    // A count whose every line differs from the stock, with no expected quantity, as the benchmark sends them.
    const counted = tenant.products.slice(0, samples.countLines);
    await recordStockCount(
      scope,
      {
        tenantId: tenant.tenantId,
        partnerId: tenant.partnerId,
        actor,
        locationId: tenant.locationIds[0],
        stockSource: 'good',
        items: counted.map((p, i) => ({ productId: p.id, counted: 987_654 + i, expected: null })),
      },
      new Date(),
    );
    take('count', counted.length, plannedStatements('count', dialect, counted.length));

    // reserve: a hold of the tenant's last products (one unit each, by product id, as the bench
    // sends them), then its whole consume, each in its own transaction as the two routes run them.
    // reserve-lots: the same on lot-tracked products, each line taking one lot (first expired first
    // out, the short-dated lot passed over).
    for (const [kind, products] of [['reserve', tenant.products], ['reserve-lots', tenant.lotProducts]] as const) {
      const held = products.slice(-samples.reserveLines);
      const hold = await createReservation(scope, {
        tenantId: tenant.tenantId,
        partnerId: tenant.partnerId,
        actor,
        locationId: tenant.locationIds[0],
        reference: `bench-sql-capture-${kind}-${process.pid}`,
        expiresIn: 900,
        items: held.map((p) => ({ productId: p.id, quantity: '1' })),
      });
      await consumeReservation(scope, { tenantId: tenant.tenantId, number: hold.number, actor });
      take(kind, held.length, plannedStatements(kind, dialect, held.length));
    }
  } finally {
    await scope.destroy();
  }
  return checks;
}
