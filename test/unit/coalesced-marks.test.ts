import { CoalescedMarks } from '../../src/db/coalesced-marks';
import type { Queryable } from '../../src/db/pool';

/** Records the statements it is given; `fail` makes every query reject. */
function recordingDb(opts: { fail?: boolean } = {}) {
  const calls: Array<{ sql: string; ids: string[] }> = [];
  const db = {
    query: async (sql: string, params: unknown[]) => {
      calls.push({ sql, ids: params[0] as string[] });
      if (opts.fail) throw new Error('database unavailable');
      return { rows: [], rowCount: 0 };
    },
  } as unknown as Queryable;
  return { db, calls };
}

const SQL = 'UPDATE t SET marked_at = now() WHERE id = ANY ($1::uuid[])';

describe('CoalescedMarks', () => {
  it('writes every id marked within one window in a single statement, then starts a new window', async () => {
    const { db, calls } = recordingDb();
    const marks = new CoalescedMarks(db, SQL, 20);
    const first = [marks.mark('a'), marks.mark('b'), marks.mark('c')];
    expect(calls).toEqual([]);
    await Promise.all(first);
    expect(calls).toEqual([{ sql: SQL, ids: ['a', 'b', 'c'] }]);
    await marks.mark('d');
    expect(calls).toEqual([
      { sql: SQL, ids: ['a', 'b', 'c'] },
      { sql: SQL, ids: ['d'] },
    ]);
  });

  it('flush writes what is pending at once and resolves the waiting marks', async () => {
    const { db, calls } = recordingDb();
    const marks = new CoalescedMarks(db, SQL, 60_000);
    const pending = marks.mark('a');
    await marks.flush();
    await pending;
    expect(calls).toEqual([{ sql: SQL, ids: ['a'] }]);
    await marks.flush();
    expect(calls).toHaveLength(1);
  });

  it('a failed write resolves like a successful one: the sweep redoes what it missed', async () => {
    const { db, calls } = recordingDb({ fail: true });
    const marks = new CoalescedMarks(db, SQL, 5);
    await expect(marks.mark('a')).resolves.toBeUndefined();
    expect(calls).toHaveLength(1);
  });
});
