import { describe, expect, it } from 'vitest';
import { allEntries, CHECK_NAMES, VALIDATOR_NAMES } from '../../server/src/catalogue/index.ts';
import { ENGINE_VALIDATORS } from '../../server/src/domain/analysis/checks.ts';
import { MESSAGE_KEYS } from '../../server/src/domain/analysis/messages.ts';
import { CHECK_CODES, VALIDATORS } from '../../server/src/validators/index.ts';
import { specDocument } from '../support/spec.ts';

const checksSchema = (specDocument as unknown as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }).components.schemas.Checks;

describe('every validator and check the catalogue names exists in the code', () => {
  it('validators: a CheckResult validator of the registry, or one the check engine implements', () => {
    const implemented = new Set<string>([...Object.keys(VALIDATORS), ...ENGINE_VALIDATORS]);
    for (const name of VALIDATOR_NAMES) expect(implemented, name).toContain(name);
    for (const e of allEntries()) for (const v of e.validators) expect(implemented, `${e.type}: ${v}`).toContain(v);
  });

  it('checks: exactly the `checks` options of the API', () => {
    expect([...CHECK_NAMES].sort()).toEqual(Object.keys(checksSchema.properties).sort());
  });

  it('every CheckResult code has its localised pass and fail messages', () => {
    for (const code of CHECK_CODES) {
      expect(MESSAGE_KEYS).toContain(`check.${code}.ok`);
      expect(MESSAGE_KEYS).toContain(`check.${code}.fail`);
    }
  });
});
