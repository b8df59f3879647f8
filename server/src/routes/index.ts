import type { operations } from '../../../generated/api.d.ts';
import type { Handler } from '../http/context.ts';
import { notImplemented } from '../http/errors.ts';
import * as analyses from './analyses.ts';
import * as batches from './batches.ts';
import * as billing from './billing.ts';
import * as documentTypes from './document-types.ts';
import * as webhookEndpoints from './webhook-endpoints.ts';

export type OperationId = keyof operations;

const pendingHandlers = new WeakSet<Handler>();

/** Operations not built yet answer 501 `not_implemented` in the envelope; the list shrinks to zero. */
const pending = (what: string): Handler => {
  const handler: Handler = async () => {
    throw notImplemented(what);
  };
  pendingHandlers.add(handler);
  return handler;
};

export const isPending = (handler: Handler): boolean => pendingHandlers.has(handler);

/** Every operationId of generated/openapi.json, and the handler that serves it. */
export const handlers: Record<OperationId, Handler> = {
  // Analyses and classifications
  createAnalysis: analyses.createAnalysis,
  createClassification: analyses.createClassification,
  getClassification: analyses.getClassification,
  listAnalyses: analyses.listAnalyses,
  getAnalysis: analyses.getAnalysis,
  deleteAnalysis: analyses.deleteAnalysis,
  exportAnalysis: analyses.exportAnalysis,
  getAnalysisFile: analyses.getAnalysisFile,
  downloadFile: analyses.downloadFile,
  // Human review
  reviewAnalysis: pending('POST /v1/analyses/{id}/review'),
  listReviews: pending('GET /v1/reviews'),
  // Batches, credits and usage (issue #6)
  createBatch: batches.createBatch,
  getBatch: batches.getBatch,
  getBalance: billing.getBalance,
  getUsage: billing.getUsage,
  // Document type catalogue
  listDocumentTypes: documentTypes.listDocumentTypes,
  getDocumentType: documentTypes.getDocumentType,
  // Webhook endpoints
  createWebhookEndpoint: webhookEndpoints.createWebhookEndpoint,
  listWebhookEndpoints: webhookEndpoints.listWebhookEndpoints,
  getWebhookEndpoint: webhookEndpoints.getWebhookEndpoint,
  deleteWebhookEndpoint: webhookEndpoints.deleteWebhookEndpoint,
  // Verification links
  createVerificationLink: pending('POST /v1/verification-links'),
  listVerificationLinks: pending('GET /v1/verification-links'),
  getVerificationLink: pending('GET /v1/verification-links/{id}'),
  cancelVerificationLink: pending('DELETE /v1/verification-links/{id}'),
  // Templates and dossiers
  createTemplate: pending('POST /v1/templates'),
  listTemplates: pending('GET /v1/templates'),
  getTemplate: pending('GET /v1/templates/{id}'),
  updateTemplate: pending('POST /v1/templates/{id}'),
  deleteTemplate: pending('DELETE /v1/templates/{id}'),
  createDossier: pending('POST /v1/dossiers'),
  listDossiers: pending('GET /v1/dossiers'),
  getDossier: pending('GET /v1/dossiers/{id}'),
  addDossierDocument: pending('POST /v1/dossiers/{id}/documents'),
  deleteDossier: pending('DELETE /v1/dossiers/{id}'),
};
