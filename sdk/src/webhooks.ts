// Webhook verification is the @cotejo/webhooks package, re-exported as `cotejo.webhooks` and as named exports.
// The source imports it by relative path (its workspace build output, dist/, is not in git, so a bare
// '@cotejo/webhooks' import would not resolve on a fresh clone); scripts/build.ts rewrites this specifier to
// '@cotejo/webhooks' in the published dist/, where it is the package's only dependency.
export { verify, sign, WebhookVerificationError } from '../../webhooks-verifier/src/index.ts';
export type {
  WebhookEvent,
  WebhookEventOf,
  WebhookHeaders,
  WebhookBody,
  VerifyOptions,
  WebhookVerificationReason,
} from '../../webhooks-verifier/src/index.ts';
