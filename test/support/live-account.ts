import { updateAccount } from '../../server/src/db/accounts.ts';
import { addCredits, type CreatedAccount } from '../../server/src/domain/accounts.ts';
import type { TestApp } from './app.ts';

/**
 * A new account of `app` ready for live analyses: no request-rate limit in the way, a verified email (free credits in
 * live mode need one) and `credits` paid credits.
 */
export async function newLiveAccount(app: TestApp, credits: number): Promise<CreatedAccount> {
  const acc = await app.newAccount({ rateLimitPerSecond: 100_000 });
  await updateAccount(app.services.db, acc.account, { email: 'ops@example.com', email_verified: true });
  await addCredits(app.services.db, app.clock, acc.account, credits);
  return acc;
}
