import { describe, expect, it } from 'vitest';
import type { Actor } from './actor.js';
import { type Dec, ZERO, dec } from './decimal.js';
import { type DomainError, type Result, unwrap } from './errors.js';
import { type StockLevel, type StockLevels, type StockOutcome, emptyStockLevel, stockKey } from './stock.js';
import {
  TRANSFER_STATUSES,
  type TransferAction,
  type TransferForDecision,
  type TransferStatus,
  approveTransfer,
  receiveTransfer,
  rejectTransfer,
  shipTransfer,
  transferTotals,
} from './transfer.js';

const actor: Actor = { id: 9, name: 'Acme Integrations', email: 'ops@acme.example' };
const now = new Date('2026-02-01T10:00:00.000Z');
const FROM = 1;
const TO = 2;

function level(good: string, damaged = '0', reserved = '0'): StockLevel {
  return { good: dec(good), damaged: dec(damaged), reserved: dec(reserved), reservedForOrders: dec(0) };
}

function plain(l: StockLevel | undefined) {
  return l && { good: l.good.toFixed(), damaged: l.damaged.toFixed(), reserved: l.reserved.toFixed() };
}

function transfer(over: Partial<TransferForDecision> = {}): TransferForDecision {
  return {
    status: 'pending',
    fromLocationId: FROM,
    toLocationId: TO,
    items: [
      { productId: 101, quantity: dec('4') },
      { productId: 102, quantity: dec('0.5') },
    ],
    ...over,
  };
}

function expectOk<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.kind}: ${result.error.message}`);
  return result.value;
}

function expectRefused<T>(result: Result<T>): DomainError {
  if (result.ok) throw new Error('expected a refusal');
  expect(Object.keys(result).sort()).toStrictEqual(['error', 'ok']);
  return result.error;
}

/** What persistence does with an outcome: the touched rows replace the stored ones. */
function persist(stock: StockLevels, outcome: StockOutcome): StockLevels {
  return new Map([...stock, ...outcome.levels]);
}

describe('transferTotals', () => {
  it('computes line values, item count, total quantity and total value exactly', () => {
    const totals = unwrap(
      transferTotals([
        { quantity: dec('3'), unitPrice: dec('19.99') },
        { quantity: dec('0.5'), unitPrice: dec('0.1') },
        { quantity: dec('0.1'), unitPrice: dec('0.2') },
      ]),
    );
    expect(totals.lineValues.map((v) => v.toFixed())).toStrictEqual(['59.97', '0.05', '0.02']);
    expect(totals.totalItems).toBe(3);
    expect(totals.totalQuantity.toFixed()).toBe('3.6');
    expect(totals.totalValue.toFixed()).toBe('60.04');
  });

  it('is zero for no lines', () => {
    const totals = unwrap(transferTotals([]));
    expect(totals).toMatchObject({ totalItems: 0, lineValues: [] });
    expect(totals.totalQuantity.isZero()).toBe(true);
    expect(totals.totalValue.isZero()).toBe(true);
  });

  it('accepts a line total of exactly 15 significant digits at the largest cost price', () => {
    const totals = unwrap(transferTotals([{ quantity: dec('100'), unitPrice: dec('9999999999999.99') }]));
    expect(totals.totalValue.toFixed()).toBe('999999999999999');
  });

  it('refuses a line whose total would not be exact as a JSON number, on that line\'s quantity', () => {
    const result = transferTotals([
      { quantity: dec('1'), unitPrice: dec('10') },
      { quantity: dec('99999999999.9999'), unitPrice: dec('9999999999999.99') },
    ]);
    expect(result).toMatchObject({ ok: false, error: { kind: 'VALIDATION_ERROR', details: { field: 'items[1].quantity' } } });
    expect(!result.ok && result.error.details.issue).toMatch(/unit_price .*has more than 15 significant digits/);
  });

  it('refuses a total value or a total quantity past 15 significant digits on items', () => {
    const value = transferTotals([
      { quantity: dec('100'), unitPrice: dec('9999999999999.99') },
      { quantity: dec('100'), unitPrice: dec('9999999999999.99') },
    ]);
    expect(value).toMatchObject({ ok: false, error: { details: { field: 'items', issue: expect.stringContaining('1999999999999998') } } });
    const quantity = transferTotals([
      { quantity: dec('99999999999.9999'), unitPrice: dec('0') },
      { quantity: dec('0.0002'), unitPrice: dec('0') },
    ]);
    expect(quantity).toMatchObject({ ok: false, error: { details: { field: 'items', issue: expect.stringContaining('quantities add up to 100000000000.0001') } } });
  });
});

describe('state machine', () => {
  // Stock generous enough that every action succeeds from its proper state.
  const plenty: StockLevels = new Map([
    ['1:101', level('100', '0', '10')],
    ['1:102', level('100', '0', '10')],
  ]);

  const run: Record<TransferAction, (status: TransferStatus) => Result<unknown>> = {
    approve: (status) => approveTransfer(transfer({ status }), plenty, now, actor),
    reject: (status) => rejectTransfer({ status }, 'not needed', now, actor),
    ship: (status) => shipTransfer(transfer({ status }), plenty, now, actor),
    receive: (status) => receiveTransfer(transfer({ status }), plenty, now, actor),
  };

  const table: { action: TransferAction; from: TransferStatus; verb: string }[] = [
    { action: 'approve', from: 'pending', verb: 'approved' },
    { action: 'reject', from: 'pending', verb: 'rejected' },
    { action: 'ship', from: 'approved', verb: 'shipped' },
    { action: 'receive', from: 'in_transit', verb: 'received' },
  ];

  it('has five states', () => {
    expect(TRANSFER_STATUSES).toStrictEqual(['pending', 'approved', 'rejected', 'in_transit', 'completed']);
  });

  describe.each(table)('$action', ({ action, from, verb }) => {
    it(`is allowed from exactly one state: ${from}`, () => {
      const allowedFrom = TRANSFER_STATUSES.filter((status) => run[action](status).ok);
      expect(allowedFrom).toStrictEqual([from]);
    });

    it.each(TRANSFER_STATUSES.filter((s) => s !== from))('from %s is INVALID_STATE on status', (status) => {
      const error = expectRefused(run[action](status));
      const message = `transfer is ${status}; only a ${from} transfer can be ${verb}`;
      expect(error).toStrictEqual({ kind: 'INVALID_STATE', message, details: { field: 'status', issue: message } });
    });
  });

  it('checks the state before the stock', () => {
    // No stock at all, yet the refusal is about the state, not the stock.
    expect(expectRefused(approveTransfer(transfer({ status: 'approved' }), new Map(), now, actor)).kind).toBe('INVALID_STATE');
    expect(expectRefused(shipTransfer(transfer({ status: 'pending' }), new Map(), now, actor)).kind).toBe('INVALID_STATE');
  });
});

describe('approveTransfer', () => {
  it('reserves every line at the source and records who approved it and when', () => {
    const stock = new Map([
      ['1:101', level('10', '3')],
      ['1:102', level('1')],
    ]);
    const value = expectOk(approveTransfer(transfer(), stock, now, actor));
    expect(value.next).toStrictEqual({ status: 'approved', approvedAt: now, approvedBy: actor });
    expect(plain(value.stock.levels.get('1:101'))).toStrictEqual({ good: '10', damaged: '3', reserved: '4' });
    expect(plain(value.stock.levels.get('1:102'))).toStrictEqual({ good: '1', damaged: '0', reserved: '0.5' });
    expect(value.stock.levels.has('2:101')).toBe(false);
    expect(value.stock.movements.map((m) => [stockKey(m), m.bucket, m.delta.toFixed()])).toStrictEqual([
      ['1:101', 'reserved', '4'],
      ['1:102', 'reserved', '0.5'],
    ]);
  });

  it('may reserve exactly what is available', () => {
    const stock = new Map([
      ['1:101', level('4')],
      ['1:102', level('0.5')],
    ]);
    expectOk(approveTransfer(transfer(), stock, now, actor));
  });

  it('refuses when a line exceeds the good stock, naming that line, and reserves nothing', () => {
    const stock = new Map([
      ['1:101', level('100')],
      ['1:102', level('0.4999', '50')],
    ]);
    const error = expectRefused(approveTransfer(transfer(), stock, now, actor));
    expect(error.kind).toBe('INSUFFICIENT_STOCK');
    expect(error.details.field).toBe('items[1].quantity');
    expect(error.message).toBe('insufficient stock of product 102 at location 1: 0.4999 available, 0.5 needed');
    expect(plain(stock.get('1:101'))?.reserved).toBe('0');
  });

  it('refuses when part of the good stock is already reserved by another transfer', () => {
    const items = [{ productId: 101, quantity: dec('4') }];
    const error = expectRefused(approveTransfer(transfer({ items }), new Map([['1:101', level('10', '0', '7')]]), now, actor));
    expect(error.kind).toBe('INSUFFICIENT_STOCK');
    expect(error.details.field).toBe('items[0].quantity');
    expect(error.message).toContain('3 available, 4 needed');
    const value = expectOk(approveTransfer(transfer({ items }), new Map([['1:101', level('11', '0', '7')]]), now, actor));
    expect(plain(value.stock.levels.get('1:101'))).toStrictEqual({ good: '11', damaged: '0', reserved: '11' });
  });

  it('refuses when the source holds none of the product', () => {
    const error = expectRefused(approveTransfer(transfer(), new Map([['2:101', level('100')]]), now, actor));
    expect(error.kind).toBe('INSUFFICIENT_STOCK');
    expect(error.details.field).toBe('items[0].quantity');
  });
});

describe('rejectTransfer', () => {
  it('records the reason, who rejected it and when, with no stock effect', () => {
    expect(rejectTransfer({ status: 'pending' }, 'wrong destination', now, actor)).toStrictEqual({
      ok: true,
      value: { next: { status: 'rejected', rejectedAt: now, rejectedBy: actor, rejectionReason: 'wrong destination' } },
    });
  });
});

describe('shipTransfer', () => {
  it('takes the reserved quantities out of the source: reserved and good both go down', () => {
    const stock = new Map([
      ['1:101', level('10', '2', '6')],
      ['1:102', level('0.5', '0', '0.5')],
      ['2:101', level('3')],
    ]);
    const value = expectOk(shipTransfer(transfer({ status: 'approved' }), stock, now, actor));
    expect(value.next).toStrictEqual({ status: 'in_transit', shippedAt: now, shippedBy: actor });
    expect(plain(value.stock.levels.get('1:101'))).toStrictEqual({ good: '6', damaged: '2', reserved: '2' });
    expect(plain(value.stock.levels.get('1:102'))).toStrictEqual({ good: '0', damaged: '0', reserved: '0' });
    expect(value.stock.levels.has('2:101')).toBe(false);
    expect(value.stock.movements.map((m) => [stockKey(m), m.bucket, m.before.toFixed(), m.after.toFixed()])).toStrictEqual([
      ['1:101', 'reserved', '6', '2'],
      ['1:101', 'good', '10', '6'],
      ['1:102', 'reserved', '0.5', '0'],
      ['1:102', 'good', '0.5', '0'],
    ]);
  });

  it('refuses, naming the line, when less is reserved than is shipped', () => {
    const stock = new Map([
      ['1:101', level('10', '0', '4')],
      ['1:102', level('10', '0', '0.25')],
    ]);
    const error = expectRefused(shipTransfer(transfer({ status: 'approved' }), stock, now, actor));
    expect(error.kind).toBe('INSUFFICIENT_STOCK');
    expect(error.details.field).toBe('items[1].quantity');
  });
});

describe('receiveTransfer', () => {
  it("adds the quantities to the destination's good stock", () => {
    const stock = new Map([
      ['2:101', level('2', '1', '1')],
      ['1:101', level('50')],
    ]);
    const value = expectOk(receiveTransfer(transfer({ status: 'in_transit' }), stock, now, actor));
    expect(value.next).toStrictEqual({ status: 'completed', receivedAt: now, receivedBy: actor });
    expect(plain(value.stock.levels.get('2:101'))).toStrictEqual({ good: '6', damaged: '1', reserved: '1' });
    expect(plain(value.stock.levels.get('2:102'))).toStrictEqual({ good: '0.5', damaged: '0', reserved: '0' });
    expect(value.stock.levels.has('1:101')).toBe(false);
    expect(value.stock.movements.map((m) => [stockKey(m), m.bucket, m.delta.toFixed()])).toStrictEqual([
      ['2:101', 'good', '4'],
      ['2:102', 'good', '0.5'],
    ]);
  });

  it('never leaves a destination row with more reserved than good, even one that arrives that way', () => {
    const corrupt = new Map([['2:101', level('1', '0', '9')]]);
    const error = expectRefused(receiveTransfer(transfer({ status: 'in_transit' }), corrupt, now, actor));
    expect(error.kind).toBe('INSUFFICIENT_STOCK');
    expect(error.details.field).toBe('items[0].quantity');
  });
});

describe('a whole transfer', () => {
  it('pending -> approved -> in_transit -> completed moves the goods and conserves total good stock', () => {
    const products = [101, 102];
    const goodAcross = (stock: StockLevels, productId: number): Dec =>
      [FROM, TO].reduce((total, locationId) => total.plus((stock.get(stockKey({ locationId, productId })) ?? emptyStockLevel()).good), ZERO);

    let stock: StockLevels = new Map([
      ['1:101', level('20', '3', '5')], // 5 already reserved by another transfer
      ['1:102', level('0.75')],
      ['2:101', level('7')],
    ]);
    const before = products.map((p) => goodAcross(stock, p).toFixed());
    let t = transfer();

    const approved = expectOk(approveTransfer(t, stock, now, actor));
    t = { ...t, status: approved.next.status };
    stock = persist(stock, approved.stock);
    expect(products.map((p) => goodAcross(stock, p).toFixed())).toStrictEqual(before);
    expect(plain(stock.get('1:101'))?.reserved).toBe('9');

    const shipped = expectOk(shipTransfer(t, stock, now, actor));
    t = { ...t, status: shipped.next.status };
    stock = persist(stock, shipped.stock);
    // In transit: the goods are at neither location.
    expect(products.map((p) => goodAcross(stock, p).toFixed())).toStrictEqual(['23', '0.25']);

    const received = expectOk(receiveTransfer(t, stock, now, actor));
    t = { ...t, status: received.next.status };
    stock = persist(stock, received.stock);

    expect(t.status).toBe('completed');
    expect(products.map((p) => goodAcross(stock, p).toFixed())).toStrictEqual(before);
    expect(plain(stock.get('1:101'))).toStrictEqual({ good: '16', damaged: '3', reserved: '5' });
    expect(plain(stock.get('1:102'))).toStrictEqual({ good: '0.25', damaged: '0', reserved: '0' });
    expect(plain(stock.get('2:101'))).toStrictEqual({ good: '11', damaged: '0', reserved: '0' });
    expect(plain(stock.get('2:102'))).toStrictEqual({ good: '0.5', damaged: '0', reserved: '0' });

    // Nothing more can happen to a completed transfer.
    const steps: ((t: TransferForDecision, s: StockLevels, at: Date, by: Actor) => Result<unknown>)[] = [approveTransfer, shipTransfer, receiveTransfer];
    for (const step of steps) {
      expect(expectRefused(step(t, stock, now, actor)).kind).toBe('INVALID_STATE');
    }
    expect(expectRefused(rejectTransfer(t, 'late', now, actor)).kind).toBe('INVALID_STATE');
  });
});
