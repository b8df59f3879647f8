// Every wire type comes from the API's generated types (openapi-typescript output of generated/openapi.json).
// In the repository this file imports ../../generated/api.d.ts type-only; the build (scripts/build.ts) copies that
// file into dist/ as api.d.ts and rewrites the specifier, so the published declarations stand alone.
import type { components, operations } from '../../generated/api.d.ts';

export type { components, operations };

export type Schemas = components['schemas'];
type Content<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<Op extends keyof operations> = operations[Op]['responses'];

/** The JSON body of the success response (200, 201 or 202) of an operation. */
export type ResponseOf<Op extends keyof operations> =
  | Content<Responses<Op> extends { 200: infer R } ? R : never>
  | Content<Responses<Op> extends { 201: infer R } ? R : never>
  | Content<Responses<Op> extends { 202: infer R } ? R : never>;

/** The query parameters of an operation. */
export type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

/** The JSON request body of an operation. */
export type JsonBodyOf<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type Analysis = Schemas['Analysis'];
export type AnalysisList = Schemas['AnalysisList'];
export type AnalyzeOptions = Schemas['AnalyzeOptions'];
export type AnalyzeJsonRequest = Schemas['AnalyzeJsonRequest'];
export type Classification = Schemas['Classification'];
export type Batch = Schemas['Batch'];
export type BatchItem = Schemas['BatchItem'];
export type DocumentType = Schemas['DocumentType'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type VerificationLink = Schemas['VerificationLink'];
export type Balance = Schemas['Balance'];
export type Usage = Schemas['Usage'];
export type Template = Schemas['Template'];
export type ErrorObject = Schemas['ErrorObject'];
export type ErrorResponse = Schemas['ErrorResponse'];
export type ExportFormat = Schemas['ExportFormat'];
export type Dossier = Schemas['Dossier'];
export type DossierDocument = Schemas['DossierDocument'];
export type DossierVerdict = Schemas['DossierVerdict'];
export type DeletedDossier = Schemas['DeletedDossier'];
export type CreateDossierRequest = Schemas['CreateDossierRequest'];
export type RequiredDocument = Schemas['RequiredDocument'];
export type DeletedTemplate = Schemas['DeletedTemplate'];
export type CreateTemplateRequest = Schemas['CreateTemplateRequest'];
export type UpdateTemplateRequest = Schemas['UpdateTemplateRequest'];
export type Review = Schemas['Review'];
export type ReviewRequest = Schemas['ReviewRequest'];
export type ReviewStatusFilter = Schemas['ReviewStatusFilter'];
