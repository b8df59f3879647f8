/**
 * Below this confidence a character (or a field without per-character confidences) is "read unsure": a validator
 * that fails on it has not proven anything, and the verdict says `low_confidence` (warning) instead of an error.
 * Provisional value; bench/check-confidence.ts measures it (bench/results/check-confidence.md).
 */
export const CHECK_CHAR_CONFIDENCE = 0.5;
