import type { operations } from '../../../generated/api.d.ts';
import { notImplemented } from '../errors.ts';
import type { Handler } from '../http/context.ts';
import * as analyses from './analyses.ts';
import * as batches from './batches.ts';
import * as billing from './billing.ts';
import * as documentTypes from './document-types.ts';
import * as dossiers from './dossiers.ts';
import * as reviews from './reviews.ts';
import * as templates from './templates.ts';
import * as verificationLinks from './verification-links.ts';
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
  reviewAnalysis: reviews.reviewAnalysis,
  listReviews: reviews.listReviews,
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
  createVerificationLink: verificationLinks.createVerificationLink,
  listVerificationLinks: verificationLinks.listVerificationLinks,
  getVerificationLink: verificationLinks.getVerificationLink,
  cancelVerificationLink: verificationLinks.cancelVerificationLink,
  // Templates and dossiers
  createTemplate: templates.createTemplate,
  listTemplates: templates.listTemplates,
  getTemplate: templates.getTemplate,
  updateTemplate: templates.updateTemplate,
  deleteTemplate: templates.deleteTemplate,
  createDossier: dossiers.createDossier,
  listDossiers: dossiers.listDossiers,
  getDossier: dossiers.getDossier,
  addDossierDocument: dossiers.addDossierDocument,
  deleteDossier: dossiers.deleteDossier,
};
