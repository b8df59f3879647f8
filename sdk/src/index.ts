// @cotejo/sdk: the TypeScript client of the Cotejo document analysis API.
import { APIClient, type ClientOptions } from './core.ts';
import {
  Analyses,
  BalanceResource,
  Batches,
  Classifications,
  DocumentTypes,
  Dossiers,
  Reviews,
  Templates,
  UsageResource,
  VerificationLinks,
  WebhookEndpoints,
} from './resources.ts';
import { verify } from './webhooks.ts';

export class Cotejo extends APIClient {
  readonly analyses = new Analyses(this);
  readonly classifications = new Classifications(this);
  readonly batches = new Batches(this);
  readonly documentTypes = new DocumentTypes(this);
  readonly webhookEndpoints = new WebhookEndpoints(this);
  readonly verificationLinks = new VerificationLinks(this);
  readonly reviews = new Reviews(this);
  readonly balance = new BalanceResource(this);
  readonly usage = new UsageResource(this);
  readonly templates = new Templates(this);
  readonly dossiers = new Dossiers(this);
  /** Verification of signed webhook deliveries (`@cotejo/webhooks`). */
  readonly webhooks = { verify } as const;

  constructor(opts: ClientOptions = {}) {
    super(opts);
  }
}

export default Cotejo;

export { APIClient, DEFAULT_BASE_URL, VERSION, isRetryable, parseRetryAfter, backoffMs } from './core.ts';
export type { ClientOptions, RequestOptions } from './core.ts';
export * from './errors.ts';
export { PagePromise, type Page, type ListBody } from './pagination.ts';
export type { FileInput, Uploadable } from './uploads.ts';
export type {
  AnalyzeParams,
  AddDossierDocumentParams,
  BatchCreateParams,
  PollOptions,
  Analyses,
  Classifications,
  Batches,
  DocumentTypes,
  WebhookEndpoints,
  VerificationLinks,
  Reviews,
  BalanceResource,
  UsageResource,
  Templates,
  Dossiers,
} from './resources.ts';
export * from './webhooks.ts';
export type * from './types.ts';
