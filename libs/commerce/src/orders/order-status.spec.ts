import fc from 'fast-check';
import {
  INITIAL_ORDER_STATUS,
  ORDER_STATUSES,
  ORDER_TRANSITIONS,
  allowedTransitions,
  canTransition,
  isOrderStatus,
  isTerminal,
  type OrderStatus,
} from './order-status.js';

/** The allowed moves of the order status machine, written out independently of the module under test. */
const CONTRACT: Record<string, string[]> = {
  pending: ['paid', 'cancelled'],
  paid: ['shipped', 'cancelled', 'refunded'],
  shipped: ['delivered', 'refunded'],
  delivered: ['refunded'],
  cancelled: [],
  refunded: [],
};
const inContract = (from: string, to: string) => Object.hasOwn(CONTRACT, from) && CONTRACT[from].includes(to);

const status = fc.constantFrom(...ORDER_STATUSES);
/** Statuses and strings that are not statuses, prototype keys included. */
const anyName = fc.oneof(
  status,
  fc.string(),
  fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty', 'PAID', ' paid'),
);

describe('order status machine', () => {
  it('knows exactly the six statuses of the contract', () => {
    expect([...ORDER_STATUSES].sort()).toEqual(Object.keys(CONTRACT).sort());
    expect(INITIAL_ORDER_STATUS).toBe('pending');
  });

  it('accepts a move exactly when the contract table lists it', () => {
    fc.assert(
      fc.property(anyName, anyName, (from, to) => {
        expect(canTransition(from, to)).toBe(inContract(from, to));
      }),
    );
  });

  it('answers the allowed targets of the table for a status and none for anything else', () => {
    fc.assert(
      fc.property(anyName, (from) => {
        expect([...allowedTransitions(from)].sort()).toEqual(
          Object.hasOwn(CONTRACT, from) ? [...CONTRACT[from]].sort() : [],
        );
        expect(isOrderStatus(from)).toBe(Object.hasOwn(CONTRACT, from));
      }),
    );
  });

  it('accepts every entry of the table', () => {
    for (const [from, targets] of Object.entries(CONTRACT)) {
      for (const to of targets) expect(canTransition(from, to), `${from} → ${to}`).toBe(true);
    }
  });

  it('never accepts staying in the same status', () => {
    fc.assert(
      fc.property(status, (s) => {
        expect(canTransition(s, s)).toBe(false);
      }),
    );
  });

  it('terminal states (cancelled, refunded) accept nothing', () => {
    expect(ORDER_STATUSES.filter((s) => isTerminal(s)).sort()).toEqual(['cancelled', 'refunded']);
    fc.assert(
      fc.property(fc.constantFrom<OrderStatus>('cancelled', 'refunded'), anyName, (from, to) => {
        expect(canTransition(from, to)).toBe(false);
      }),
    );
  });

  it(
    'random walks from pending only take moves of the table, end in ' +
      'a terminal state or stay within 4 moves, and never come back',
    () => {
      fc.assert(
        fc.property(fc.array(status, { maxLength: 40 }), (attempts) => {
          let current: OrderStatus = INITIAL_ORDER_STATUS;
          const visited: OrderStatus[] = [current];
          for (const to of attempts) {
            const accepted = canTransition(current, to);
            expect(accepted).toBe(inContract(current, to));
            if (!accepted) continue;
            current = to;
            expect(visited).not.toContain(current);
            visited.push(current);
          }
          // The longest path is pending → paid → shipped → delivered → refunded.
          expect(visited.length).toBeLessThanOrEqual(5);
          if (isTerminal(current)) {
            for (const to of ORDER_STATUSES) expect(canTransition(current, to)).toBe(false);
          }
        }),
      );
    },
  );

  it('reaches every status from pending, and every move names the specific event of its target', () => {
    const reached = new Set<string>([INITIAL_ORDER_STATUS]);
    const queue: string[] = [INITIAL_ORDER_STATUS];
    while (queue.length > 0) {
      for (const to of allowedTransitions(queue.shift()!)) {
        if (reached.has(to)) continue;
        reached.add(to);
        queue.push(to);
      }
    }
    expect([...reached].sort()).toEqual([...ORDER_STATUSES].sort());
    fc.assert(
      fc.property(status, status, (from, to) => {
        expect(ORDER_TRANSITIONS[from][to]).toBe(canTransition(from, to) ? `order.${to}` : undefined);
      }),
    );
  });

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(ORDER_TRANSITIONS)).toBe(true);
    for (const s of ORDER_STATUSES) expect(Object.isFrozen(ORDER_TRANSITIONS[s])).toBe(true);
  });
});
