import type { Queryable } from './pool';

/**
 * Best-effort marks ("this row's follow-up work is done"), written for many ids at once: every id
 * added within `windowMs` goes into one `statement` run with the array of ids as $1. For marks that
 * only spare a sweep work it would redo harmlessly, such as a workflow start refused as a duplicate.
 * A window lost to a crash, or a failed write, costs the sweep that work and nothing else. So a
 * failed write resolves like a successful one.
 */
export class CoalescedMarks {
  private batch: { ids: string[]; written: Promise<void>; resolve: () => void; timer: NodeJS.Timeout } | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly statement: string,
    private readonly windowMs: number,
  ) {}

  /** Resolves once the write that carries this id has run. */
  mark(id: string): Promise<void> {
    if (!this.batch) {
      let resolve!: () => void;
      const written = new Promise<void>((r) => (resolve = r));
      const timer = setTimeout(() => void this.write(), this.windowMs);
      // A pending window must not keep a process alive that is otherwise done.
      timer.unref();
      this.batch = { ids: [], written, resolve, timer };
    }
    this.batch.ids.push(id);
    return this.batch.written;
  }

  /** Writes what is pending now (at shutdown). */
  flush(): Promise<void> {
    return this.write();
  }

  private async write(): Promise<void> {
    const batch = this.batch;
    if (!batch) return;
    this.batch = null;
    clearTimeout(batch.timer);
    await this.db.query(this.statement, [batch.ids]).catch(() => undefined);
    batch.resolve();
  }
}
