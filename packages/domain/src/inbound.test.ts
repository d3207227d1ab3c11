import { describe, expect, it } from 'vitest';
import { dec } from './decimal.js';
import type { DomainError, Result } from './errors.js';
import {
  INBOUND_STATUSES,
  type InboundForDecision,
  type InboundLine,
  type InboundReceipt,
  type Receipt,
  type ReceiptCondition,
  cancelInbound,
  pendingQuantity,
  receiveInbound,
} from './inbound.js';
import { type StockLevel, type StockLevels } from './stock.js';

const LOC = 5;

function line(id: number, productId: number, expected: string, received = '0'): InboundLine {
  return { id, productId, expected: dec(expected), received: dec(received) };
}

function shipment(over: Partial<InboundForDecision> = {}): InboundForDecision {
  return { status: 'pending', locationId: LOC, lines: [line(11, 101, '10'), line(12, 102, '5')], ...over };
}

function receipt(itemId: number, quantity: string, condition: ReceiptCondition = 'good'): Receipt {
  return { itemId, quantity: dec(quantity), condition };
}

function level(good: string, damaged = '0', reserved = '0'): StockLevel {
  return { good: dec(good), damaged: dec(damaged), reserved: dec(reserved), reservedForOrders: dec(0) };
}

function plain(l: StockLevel | undefined) {
  return l && { good: l.good.toFixed(), damaged: l.damaged.toFixed(), reserved: l.reserved.toFixed() };
}

function receivedById(value: InboundReceipt): Record<number, string> {
  return Object.fromEntries([...value.received].map(([id, q]) => [id, q.toFixed()]));
}

function expectOk<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.kind}: ${result.error.message}`);
  return result.value;
}

function expectRefused<T>(result: Result<T>): DomainError {
  if (result.ok) throw new Error('expected a refusal');
  // A refusal carries nothing that could be applied.
  expect(Object.keys(result).sort()).toStrictEqual(['error', 'ok']);
  return result.error;
}

/** The shipment as persistence would store it after a receipt. */
function afterReceipt(inbound: InboundForDecision, value: InboundReceipt): InboundForDecision {
  return {
    ...inbound,
    status: value.next.status,
    lines: inbound.lines.map((l) => ({ ...l, received: value.received.get(l.id) ?? l.received })),
  };
}

describe('pendingQuantity', () => {
  it('is expected minus received', () => {
    expect(pendingQuantity(line(1, 1, '10', '3.5')).toFixed()).toBe('6.5');
    expect(pendingQuantity(line(1, 1, '0.3', '0.1')).toFixed()).toBe('0.2');
    expect(pendingQuantity(line(1, 1, '10', '10')).isZero()).toBe(true);
  });

  it('is never negative, even for a line received beyond its expected quantity', () => {
    const left = pendingQuantity(line(1, 1, '10', '12'));
    expect(left.isZero()).toBe(true);
    expect(left.isNegative()).toBe(false);
  });
});

describe('receiveInbound', () => {
  it('a partial receipt leaves the shipment partial; receiving the rest makes it received', () => {
    let inbound = shipment();
    const first = expectOk(receiveInbound(inbound, [receipt(11, '4')], new Map()));
    expect(first.next).toStrictEqual({ status: 'partial' });
    expect(receivedById(first)).toStrictEqual({ 11: '4', 12: '0' });
    expect(plain(first.stock.levels.get('5:101'))).toStrictEqual({ good: '4', damaged: '0', reserved: '0' });

    inbound = afterReceipt(inbound, first);
    expect(inbound.lines.map((l) => pendingQuantity(l).toFixed())).toStrictEqual(['6', '5']);
    const stock: StockLevels = new Map([...first.stock.levels]);

    const second = expectOk(receiveInbound(inbound, [receipt(11, '6'), receipt(12, '5')], stock));
    expect(second.next).toStrictEqual({ status: 'received' });
    expect(receivedById(second)).toStrictEqual({ 11: '10', 12: '5' });
    expect(plain(second.stock.levels.get('5:101'))?.good).toBe('10');
    expect(plain(second.stock.levels.get('5:102'))?.good).toBe('5');
    expect(second.stock.movements.map((m) => [m.productId, m.bucket, m.before.toFixed(), m.after.toFixed()])).toStrictEqual([
      [101, 'good', '4', '10'],
      [102, 'good', '0', '5'],
    ]);
    expect(afterReceipt(inbound, second).lines.map((l) => pendingQuantity(l).toFixed())).toStrictEqual(['0', '0']);
  });

  it('stays partial while any line is still pending, even when another is complete', () => {
    const value = expectOk(receiveInbound(shipment(), [receipt(11, '10'), receipt(12, '4.9999')], new Map()));
    expect(value.next.status).toBe('partial');
  });

  it('receiving everything at once from pending makes it received', () => {
    const value = expectOk(receiveInbound(shipment(), [receipt(12, '5'), receipt(11, '10')], new Map()));
    expect(value.next.status).toBe('received');
  });

  it('damaged goods go to the damaged bucket and good goods to good', () => {
    const stock = new Map([['5:101', level('1', '2', '1')]]);
    const value = expectOk(receiveInbound(shipment(), [receipt(11, '3', 'damaged'), receipt(12, '1', 'good')], stock));
    expect(plain(value.stock.levels.get('5:101'))).toStrictEqual({ good: '1', damaged: '5', reserved: '1' });
    expect(plain(value.stock.levels.get('5:102'))).toStrictEqual({ good: '1', damaged: '0', reserved: '0' });
  });

  it('moves stock in the order of the receipt lines, at the shipment location', () => {
    const value = expectOk(receiveInbound(shipment(), [receipt(12, '1'), receipt(11, '1')], new Map()));
    expect(value.stock.movements.map((m) => [m.locationId, m.productId])).toStrictEqual([
      [LOC, 102],
      [LOC, 101],
    ]);
  });

  it('the same item twice in one receipt accumulates', () => {
    const value = expectOk(receiveInbound(shipment(), [receipt(11, '6'), receipt(11, '4', 'damaged')], new Map()));
    expect(receivedById(value)).toStrictEqual({ 11: '10', 12: '0' });
    expect(plain(value.stock.levels.get('5:101'))).toStrictEqual({ good: '6', damaged: '4', reserved: '0' });
  });

  it('the same item twice is checked on its sum', () => {
    const error = expectRefused(receiveInbound(shipment(), [receipt(11, '6'), receipt(11, '5')], new Map()));
    expect(error.kind).toBe('VALIDATION_ERROR');
    expect(error.details).toStrictEqual({
      field: 'items[1].received_quantity',
      issue: 'exceeds the pending quantity of item 11: 4 pending, 5 received',
    });
  });

  it('refuses an over-receipt on that item and applies nothing', () => {
    const inbound = shipment({ status: 'partial', lines: [line(11, 101, '10', '8'), line(12, 102, '5')] });
    const stock = new Map([['5:101', level('8')]]);
    const error = expectRefused(receiveInbound(inbound, [receipt(12, '5'), receipt(11, '3')], stock));
    expect(error).toStrictEqual({
      kind: 'VALIDATION_ERROR',
      message: 'exceeds the pending quantity of item 11: 2 pending, 3 received',
      details: { field: 'items[1].received_quantity', issue: 'exceeds the pending quantity of item 11: 2 pending, 3 received' },
    });
    expect(plain(stock.get('5:101'))?.good).toBe('8');
    expect(inbound.lines.map((l) => l.received.toFixed())).toStrictEqual(['8', '0']);
  });

  it('accepts exactly the pending quantity and refuses anything on a fully received line', () => {
    const inbound = shipment({ status: 'partial', lines: [line(11, 101, '10', '8'), line(12, 102, '5', '5')] });
    expect(expectOk(receiveInbound(inbound, [receipt(11, '2')], new Map())).next.status).toBe('received');
    const error = expectRefused(receiveInbound(inbound, [receipt(12, '0.0001')], new Map()));
    expect(error.details.issue).toBe('exceeds the pending quantity of item 12: 0 pending, 0.0001 received');
  });

  it('refuses an item that is not part of the shipment', () => {
    const error = expectRefused(receiveInbound(shipment(), [receipt(11, '1'), receipt(999, '1')], new Map()));
    expect(error.kind).toBe('VALIDATION_ERROR');
    expect(error.details).toStrictEqual({ field: 'items[1].item_id', issue: 'item 999 is not part of this inbound shipment' });
    expect('issues' in error).toBe(false);
  });

  it('reports every issue, the first in details', () => {
    const error = expectRefused(receiveInbound(shipment(), [receipt(999, '1'), receipt(11, '1'), receipt(12, '6'), receipt(13, '1')], new Map()));
    expect(error.kind).toBe('VALIDATION_ERROR');
    expect(error.details).toStrictEqual({ field: 'items[0].item_id', issue: 'item 999 is not part of this inbound shipment' });
    expect(error.issues).toStrictEqual([
      { field: 'items[0].item_id', issue: 'item 999 is not part of this inbound shipment' },
      { field: 'items[2].received_quantity', issue: 'exceeds the pending quantity of item 12: 5 pending, 6 received' },
      { field: 'items[3].item_id', issue: 'item 13 is not part of this inbound shipment' },
    ]);
  });

  it('refuses the receipt whole when the stock rules refuse its effect', () => {
    // A stock row that already holds more reserved than good is never built upon.
    const corrupt = new Map([['5:102', level('0', '0', '9')]]);
    const error = expectRefused(receiveInbound(shipment(), [receipt(11, '1'), receipt(12, '1')], corrupt));
    expect(error.kind).toBe('INSUFFICIENT_STOCK');
    expect(error.details.field).toBe('items[1].received_quantity');
  });

  it.each(['received', 'cancelled'] as const)('refuses a shipment that is %s with INVALID_STATE', (status) => {
    const error = expectRefused(receiveInbound(shipment({ status }), [receipt(11, '1')], new Map()));
    const message = `inbound shipment is ${status}; it cannot be received`;
    expect(error).toStrictEqual({ kind: 'INVALID_STATE', message, details: { field: 'status', issue: message } });
  });
});

describe('cancelInbound', () => {
  it('cancels a pending shipment', () => {
    expect(cancelInbound({ status: 'pending' })).toStrictEqual({ ok: true, value: { next: { status: 'cancelled' } } });
  });

  it('refuses every other state with INVALID_STATE', () => {
    const refused = INBOUND_STATUSES.filter((status) => !cancelInbound({ status }).ok);
    expect(refused).toStrictEqual(['partial', 'received', 'cancelled']);
    for (const status of refused) {
      const error = expectRefused(cancelInbound({ status }));
      expect(error.kind).toBe('INVALID_STATE');
      expect(error.details.field).toBe('status');
      expect(error.message).toBe(`inbound shipment is ${status}; it cannot be cancelled`);
    }
  });
});
