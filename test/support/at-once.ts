// Database suites that run at the same time, for test files that mostly wait.
import { describe } from 'vitest';
import { DATABASES, type DbKind } from './app.ts';

/**
 * `describe.each(DATABASES)` whose database suites run at the same time, each suite's own tests one after another:
 * for files that mostly wait (retry back-offs, outages, a fake provider's time-outs), so that the run does not wait
 * once per database. Only for suites that share nothing between databases (no fake timers, no process-wide state).
 * Tests are named `<name> on <kind> > <kind> > <test>`.
 */
export function describeDatabasesAtOnce(name: string, fn: (kind: DbKind) => void): void {
  describe.concurrent.each(DATABASES)(name, (kind) => {
    describe(kind, { concurrent: false }, () => fn(kind));
  });
}
