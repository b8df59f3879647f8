import type { Provider } from '../../server/src/providers/types.ts';
import { testModeProvider } from '../../server/src/providers/test-mode/index.ts';

/**
 * Stands in for a configured live AI provider, which tests cannot call: it reads like test mode (the file
 * name still picks `failed`, `slow`...) but reports itself as an EU provider, so live keys get past 503
 * and everything live-only (reservations, charges, caps, credits.low) runs for real on its readings.
 * The server never uses it: it reads with the local readers (providers/local), or answers 503 live_mode_unavailable
 * when the configuration switches them all off.
 */
export const standInLiveProvider: Provider = {
  name: 'stand-in-live',
  simulated: true,
  async read(input) {
    const reading = await testModeProvider.read(input);
    return { ...reading, providers: [{ name: 'stand-in-eu-vlm', region: 'eu', role: 'llm', model: 'stand-in-1' }] };
  },
};
