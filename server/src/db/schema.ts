import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** jsonb: written as a JSON string, read back parsed. */
type Json<T> = ColumnType<T, string, string>;

export interface AccountsTable {
  id: string;
  name: string;
  email: string | null;
  email_verified: Generated<boolean>;
  rate_limit_per_second: Generated<number>;
  created_at: Timestamp;
  /** Paid milli-credits a calendar month (UTC) may spend in live mode; null: no cap. */
  monthly_credit_cap_milli: ColumnType<number | null, number | null | undefined, number | null>;
  /** `credits.low` is sent when spendable credits fall below this. */
  low_credit_threshold_milli: Generated<number>;
  /** When `credits.low` was sent; null once topped up again. */
  low_credit_notified_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The `processing` profile of an analysis that does not ask for one. */
  default_processing: Generated<'sovereign' | 'standard'>;
  /** Synchronous live analyses (analyze and classify) running at once; past it 429 `concurrency_limit`. */
  live_concurrency_limit: Generated<number>;
  /** Live pages read per minute (analyze, classify, batches); past it 429 `pages_rate_limited`. */
  live_pages_per_minute: Generated<number>;
  /** Days a pending review keeps its original at most (storage `review`), unless the template says otherwise. */
  review_max_days: Generated<number>;
  /** Hours the original is kept after a review decision (0: deleted at once), unless the template says otherwise. */
  review_retention_hours_after_decision: Generated<number>;
  /** #17: the consent text of the account's verification links (null: the default text in the link's locale). */
  link_consent_text: ColumnType<string | null, string | null | undefined, string | null>;
  /** #17: whether the hosted page shows the verdict, when a link does not say. */
  link_show_result: Generated<boolean>;
  /** #17: the selfie module (`face_verification` on links); off unless switched on by the CLI. */
  face_verification_enabled: Generated<boolean>;
  /** #17: the Standard Webhooks secrets (`whsec_`) that sign link callbacks, one per mode; made on first use. */
  callback_secret_test: ColumnType<string | null, string | null | undefined, string | null>;
  callback_secret_live: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  kind: 'secret' | 'publishable';
  livemode: boolean;
  /** First characters of the key, for display (`ck_test_ab12…`); never enough to use it. */
  display_prefix: string;
  /** SHA-256 (hex) of the whole key: the key itself is never stored. */
  key_hash: string;
  name: string | null;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface IdempotencyKeysTable {
  account_id: string;
  livemode: boolean;
  idempotency_key: string;
  operation_id: string;
  request_hash: string;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  response_headers: Json<Record<string, string>> | null;
  response_body: string | null;
  locked_until: Timestamp;
  created_at: Timestamp;
  completed_at: Timestamp | null;
}

export interface CreditLedgerTable {
  id: string;
  account_id: string;
  /** Milli-credits: classify's 0.2 credits is 200. Positive adds, negative spends. */
  amount_milli: number;
  reason: string;
  reference: string | null;
  created_at: Timestamp;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  livemode: boolean;
  url: string;
  description: string | null;
  events: Json<string[]>;
  status: 'active' | 'disabled';
  secret: string;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface ServerSettingsTable {
  name: string;
  value: string;
}

export interface AnalysesTable {
  id: string;
  account_id: string;
  livemode: boolean;
  kind: 'analysis' | 'classification';
  batch_id: string | null;
  status: 'queued' | 'processing' | 'completed' | 'failed';
  language: 'es' | 'en' | 'pt' | 'fr';
  options: Json<Record<string, unknown>>;
  metadata: Json<Record<string, string>>;
  keep_results: boolean;
  file_name: string;
  file_mime: string | null;
  file_pages: number;
  file_size: number;
  /** Null until a batch `file_url` item has been downloaded. */
  file_sha256: string | null;
  /** A batch `file_url` item not downloaded yet (the worker fetches it); null once fetched or failed. */
  source_url: ColumnType<string | null, string | null | undefined, string | null>;
  file_key: string | null;
  storage_mode: 'none' | 'temporary' | 'persistent' | 'review';
  storage_expires_at: Timestamp | null;
  file_deleted_at: Timestamp | null;
  document_type: string | null;
  result: Json<Record<string, unknown>> | null;
  error: Json<{ code: string; message: string }> | null;
  credits_milli: Generated<number>;
  exports: ColumnType<Record<string, string>, string | undefined, string>;
  created_at: Timestamp;
  started_at: Timestamp | null;
  completed_at: Timestamp | null;
  // Human review (#16, migration 0011): all null when the analysis never entered review.
  review_status: NullableColumn<'pending' | 'approved' | 'rejected'>;
  review_decision: NullableColumn<'approve' | 'reject'>;
  review_assignee: NullableColumn<string>;
  /** `key_...` id of the API key that decided. */
  review_reviewed_by: NullableColumn<string>;
  review_reviewed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  review_reason: NullableColumn<string>;
  review_note: NullableColumn<string>;
  review_entered_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** A nullable column that inserts may leave out. */
type NullableColumn<T> = ColumnType<T | null, T | null | undefined, T | null>;

export interface BatchesTable {
  id: string;
  account_id: string;
  livemode: boolean;
  status: 'processing' | 'completed';
  total: number;
  analyses: Json<string[]>;
  metadata: Json<Record<string, string>>;
  language: 'es' | 'en' | 'pt' | 'fr';
  exports: ColumnType<Record<string, string>, string | undefined, string>;
  created_at: Timestamp;
  completed_at: Timestamp | null;
}

export interface ExportsTable {
  id: string;
  analysis_id: string | null;
  batch_id: ColumnType<string | null, string | null | undefined, string | null>;
  format: string;
  blob_key: string;
  content_type: string;
  filename: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface JobsTable {
  id: string;
  queue: string;
  payload: Json<Record<string, unknown>>;
  status: 'pending' | 'running' | 'done' | 'failed';
  run_at: Timestamp;
  attempts: Generated<number>;
  max_attempts: number;
  locked_until: Timestamp | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface EventsTable {
  id: string;
  account_id: string;
  livemode: boolean;
  type: string;
  payload: Json<Record<string, unknown>>;
  /** What the event is about (`an_...`, `bat_...`): at most one event of a type per subject. */
  subject_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  /** `msg_...`: the `webhook-id`, identical on every attempt. */
  id: string;
  account_id: string;
  livemode: boolean;
  /** Null for a verification link's callback (#17): it goes to `callback_url`, signed with the account's callback secret. */
  endpoint_id: string | null;
  callback_url: ColumnType<string | null, string | null | undefined, string | null>;
  link_id: ColumnType<string | null, string | null | undefined, string | null>;
  event_id: string;
  event_type: string;
  /** The exact JSON body sent and signed on every attempt ('' once an ephemeral delivery is final). */
  payload: string;
  /** It carries a `keep_results: false` result: the body is cleared once the delivery is final. */
  ephemeral: ColumnType<boolean, boolean | undefined, boolean>;
  status: 'pending' | 'succeeded' | 'failed';
  /** Attempts made (recorded) so far. */
  attempts: Generated<number>;
  /** When the next attempt is due; null once final. */
  next_attempt_at: Timestamp | null;
  /** Lease of the worker sending it now; another may take it once this time has passed. */
  locked_until: Timestamp | null;
  locked_by: string | null;
  last_attempt_at: Timestamp | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveryAttemptsTable {
  delivery_id: string;
  /** 1 to 12. */
  attempt: number;
  sent_at: Timestamp;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  /** The start of the response body (up to 512 bytes; migration 0016), null when no response came. */
  response_excerpt: ColumnType<string | null, string | null | undefined, string | null>;
  succeeded: boolean;
}

/** One email (docs/emails.md): queued in the transaction that causes it, sent by a worker (mail/queue.ts). */
export interface EmailsTable {
  id: string;
  account_id: string | null;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  headers: Json<Record<string, string>>;
  topic: string | null;
  ref: string | null;
  dedupe_key: string | null;
  status: ColumnType<'queued' | 'sent' | 'failed', 'queued' | 'sent' | 'failed' | undefined, 'queued' | 'sent' | 'failed'>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  via: ColumnType<'smtp' | 'outbox' | null, 'smtp' | 'outbox' | null | undefined, 'smtp' | 'outbox' | null>;
  sent_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type EmailRow = Selectable<EmailsTable>;

export interface UsageRecordsTable {
  analysis_id: string;
  account_id: string;
  livemode: boolean;
  /** UTC day, `YYYY-MM-DD` (stored as a date). */
  day: ColumnType<string, string, string>;
  document_type: string;
  kind: 'analysis' | 'classification' | 'batch_analysis';
  pages: number;
  credits_milli: number;
  /** How many analyses the row counts: 1, or more for a row the retention sweep folded (`analysis_id` `usage:...`). */
  analyses: Generated<number>;
  created_at: Timestamp;
}

/** Credits held by one live analysis while it runs: captured into the ledger when it completes, released when it fails. */
export interface CreditReservationsTable {
  analysis_id: string;
  account_id: string;
  batch_id: string | null;
  /** From the monthly free tier. */
  free_milli: number;
  /** From paid credits (becomes a `charge` ledger entry on capture). */
  paid_milli: number;
  status: 'held' | 'captured' | 'released';
  created_at: Timestamp;
  settled_at: Timestamp | null;
}

/** An account's live pages: a token bucket refilled at `live_pages_per_minute` / 60 a second, holding at most a minute's worth. */
export interface LivePageBucketsTable {
  account_id: string;
  /** Pages that may be read now, as of `updated_at` (below zero after a batch larger than what was left). */
  tokens: number;
  updated_at: Timestamp;
}

/** A synchronous live analysis whose reading runs: it counts towards `live_concurrency_limit` until deleted or expired. */
export interface LiveSyncSlotsTable {
  analysis_id: string;
  account_id: string;
  /** Pushed forward while the reading runs; a slot of a process that died stops counting once past it. */
  expires_at: Timestamp;
}

export interface DB {
  live_page_buckets: LivePageBucketsTable;
  live_sync_slots: LiveSyncSlotsTable;
  credit_reservations: CreditReservationsTable;
  usage_records: UsageRecordsTable;
  batches: BatchesTable;
  analyses: AnalysesTable;
  exports: ExportsTable;
  jobs: JobsTable;
  events: EventsTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  credit_ledger: CreditLedgerTable;
  webhook_endpoints: WebhookEndpointsTable;
  server_settings: ServerSettingsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  // #16 templates tables (below this line)
  templates: TemplatesTable;
  // #16 reviews tables (below this line)
  audit_records: AuditRecordsTable;
  // #16 dossiers tables (below this line)
  dossiers: DossiersTable;
  dossier_documents: DossierDocumentsTable;
  // #17 verification links tables (below this line)
  verification_links: VerificationLinksTable;
  // #18 rate limits tables (below this line)
  rate_limit_windows: RateLimitWindowsTable;
  // #19 dashboard tables (below this line)
  members: MembersTable;
  dashboard_sessions: DashboardSessionsTable;
  member_invitations: MemberInvitationsTable;
  dashboard_sign_in_addresses: DashboardSignInAddressesTable;
  // #20 trusted lists tables (below this line)
  trusted_lists: TrustedListsTable;
  trusted_list_refresh: TrustedListRefreshTable;
  trusted_list_pivots: TrustedListPivotsTable;
  // #31 outages (below this line)
  blob_spool: BlobSpoolTable;
  // #31 the shared email outbox
  emails: EmailsTable;
}

/** An original accepted while the S3 store was away, until it is moved there (storage/spooling-blob-store.ts). */
export interface BlobSpoolTable {
  key: string;
  bytes: Uint8Array;
  created_at: Timestamp;
  /** The flush moving it to the store, until `claimed_until` (0023). */
  claim: string | null;
  claimed_until: Timestamp | null;
}

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;
export type IdempotencyRow = Selectable<IdempotencyKeysTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type AnalysisRow = Selectable<AnalysesTable>;
export type ExportRow = Selectable<ExportsTable>;
export type JobRow = Selectable<JobsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewWebhookDelivery = Insertable<WebhookDeliveriesTable>;
export type WebhookDeliveryAttemptRow = Selectable<WebhookDeliveryAttemptsTable>;
export type BatchRow = Selectable<BatchesTable>;

/** A dossier (#16): what it needs (`requirements`), and its last computed verdict and cross-document checks. */
export interface DossiersTable {
  id: string;
  account_id: string;
  livemode: boolean;
  reference: string | null;
  template: string | null;
  language: 'es' | 'en' | 'pt' | 'fr';
  requirements: Json<Array<{ key: string; label: string | null; expect: string[]; checks: Record<string, unknown> }>>;
  verification_link_id: ColumnType<string | null, string | null | undefined, string | null>;
  metadata: Json<Record<string, string>>;
  verdict: Json<{ status: 'complete_valid' | 'incomplete' | 'invalid' | 'review'; reasons: Array<{ code: string; severity: 'info' | 'warning' | 'error'; message: string }> }>;
  checks: Json<Array<{ code: string; passed: boolean; message: string }>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A document slot of a dossier: its key and the analysis in it. */
export interface DossierDocumentsTable {
  dossier_id: string;
  key: string;
  analysis_id: string;
  /** The key was chosen while the type was unknown (the analysis id): renamed after the detected type once known. */
  auto_key: ColumnType<boolean, boolean | undefined, boolean>;
  added_at: Timestamp;
}

export type DossierRow = Selectable<DossiersTable>;
export type DossierDocumentRow = Selectable<DossierDocumentsTable>;

/** A template (#16): a saved verification setup; `expect` holds catalogue type ids. Deleted rows are gone (hard delete). */
export interface TemplatesTable {
  id: string;
  account_id: string;
  livemode: boolean;
  name: string;
  description: string | null;
  /** SQL null when the template sets none. */
  expect: ColumnType<string[] | null, string | null, string | null>;
  checks: Json<Record<string, unknown>>;
  extract: Json<boolean | Record<string, unknown>>;
  storage: 'none' | 'review' | 'temporary' | 'persistent' | null;
  ttl_hours: number | null;
  language: 'es' | 'en' | 'pt' | 'fr' | null;
  processing: 'sovereign' | 'standard' | null;
  precise_bboxes: boolean | null;
  review_on_invalid: boolean;
  review_auto_approve_valid: boolean;
  review_retention_hours_after_decision: number | null;
  review_max_days: number | null;
  /** SQL null: one document (`key: document`) of the template's `expect`. */
  documents: ColumnType<TemplateDocument[] | null, string | null, string | null>;
  /** #29: fields a link made with it masks; SQL null: none. */
  mask_fields: ColumnType<string[] | null, string | null | undefined, string | null>;
  /** #29: the selfie module links made with it inherit; SQL null: off. */
  face_verification: ColumnType<{ enabled: boolean; required: boolean } | null, string | null | undefined, string | null>;
  metadata: Json<Record<string, string>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type TemplateRow = Selectable<TemplatesTable>;
export type TemplateDocument = { key: string; label: string | null; expect: string[]; checks: Record<string, unknown> };

/** One review decision (#16): who, when, what, why, and the state before and after. Outlives its analysis. */
export interface AuditRecordsTable {
  id: string;
  account_id: string;
  livemode: boolean;
  analysis_id: string;
  /** `review.approved` or `review.rejected`. */
  action: string;
  decision: 'approve' | 'reject' | null;
  /** `key_...` id of the API key that decided, or `mem_...` of the dashboard member. */
  actor: string;
  reason: string | null;
  previous_state: Json<AuditState>;
  new_state: Json<AuditState>;
  created_at: Timestamp;
}

/** The part of an analysis a review decision changes, as the audit trail records it. */
export interface AuditState {
  review_status: 'pending' | 'approved' | 'rejected' | null;
  final_status: 'valid' | 'invalid' | null;
  verdict_status: 'valid' | 'invalid' | 'review' | null;
  storage_mode: string;
  file_kept: boolean;
  storage_expires_at: string | null;
}

export type AuditRecordRow = Selectable<AuditRecordsTable>;

/** One requested document of a verification link, with its attempts and outcome (#17). */
export interface LinkDocumentState {
  key: string;
  label: string | null;
  expect: string[];
  checks: Record<string, unknown>;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  /** The attempt that counts (the last one). */
  analysis_id: string | null;
  attempts: number;
  verdict_status: 'valid' | 'invalid' | 'review' | null;
  warnings: string[];
  /** accepted: it counts; rejected: attempts ran out without one that counts. */
  outcome: 'accepted' | 'rejected' | null;
  /**
   * An upload of the hosted page that claimed this attempt (status `processing`, `attempts` counted) and has no
   * analysis yet; cleared when its analysis is recorded or intake refuses it (domain/links/page.ts). Absent on rows
   * written before it existed.
   */
  upload?: { id: string; at: string } | null;
}

export interface LinkEventEntry {
  type: string;
  at: string;
  document_key?: string;
  email?: string;
}

/** A verification link (#17). `token_hash`: SHA-256 (hex) of the URL's secret token; the token itself is never stored. */
export interface VerificationLinksTable {
  id: string;
  account_id: string;
  livemode: boolean;
  token_hash: string;
  status: 'pending' | 'in_progress' | 'completed' | 'expired' | 'cancelled';
  template: string | null;
  reference: string | null;
  metadata: Json<Record<string, string>>;
  documents: Json<LinkDocumentState[]>;
  dossier_id: string | null;
  expires_at: Timestamp;
  redirect_url: string | null;
  redirect_with_status: boolean;
  callback_url: string | null;
  include_results: boolean;
  results_email: string | null;
  results_email_sent_at: Timestamp | null;
  locale: 'es' | 'en' | 'pt' | 'fr';
  notify_email: string | null;
  last_sent_at: Timestamp | null;
  show_result: boolean;
  consent_text: string | null;
  consent: Json<{ accepted_at: string; ip: string; text: string } | null>;
  events: Json<LinkEventEntry[]>;
  face_verification: Json<{ enabled: boolean; required: boolean } | null>;
  /** #29: fields masked in what the link sends out (`[]`: none). */
  mask_fields: ColumnType<string[], string | undefined, string>;
  face_match: Json<{ status: 'pending' | 'matched' | 'not_matched' | 'failed'; score: number | null; analysis_id: string | null; checked_at: string | null } | null>;
  created_at: Timestamp;
  completed_at: Timestamp | null;
  cancelled_at: Timestamp | null;
}
export type VerificationLinkRow = Selectable<VerificationLinksTable>;

/** A request rate-limit bucket's current one-second window, shared by every process (migration 0014). */
export interface RateLimitWindowsTable {
  bucket: string;
  /** Whole seconds since the epoch. */
  window: number;
  count: number;
}

/** #19: who signs in to an account's dashboard, and with which role. */
export type MemberRole = 'owner' | 'admin' | 'member';
export interface MembersTable {
  id: string;
  account_id: string;
  email: string;
  name: string;
  role: MemberRole;
  /** argon2id (PHC string); null never in practice (members are made by accepting an invitation with a password). */
  password_hash: string | null;
  language: Generated<'es' | 'en' | 'pt' | 'fr'>;
  /** Failed sign-ins in a row (reset by a good one or by a lockout). */
  failed_sign_ins: Generated<number>;
  locked_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** #19: a signed-in browser; keyed by the SHA-256 (hex) of the cookie's token. */
export interface DashboardSessionsTable {
  token_hash: string;
  member_id: string;
  csrf_token: string;
  /** The mode the console shows (test unless switched). */
  livemode: Generated<boolean>;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  /** The absolute expiry; the idle one is last_seen_at plus the idle timeout. */
  expires_at: Timestamp;
  ip: string | null;
  user_agent: string | null;
}

/** #19: an invitation to join an account's dashboard; keyed by the SHA-256 (hex) of the link's token. */
export interface MemberInvitationsTable {
  token_hash: string;
  account_id: string;
  email: string;
  name: string | null;
  role: MemberRole;
  invited_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** #19: failed dashboard sign-ins from one client address in the current window. */
export interface DashboardSignInAddressesTable {
  address: string;
  failures: number;
  window_started_at: Timestamp;
}

export type MemberRow = Selectable<MembersTable>;
export type DashboardSessionRow = Selectable<DashboardSessionsTable>;
export type MemberInvitationRow = Selectable<MemberInvitationsTable>;

/** #20: the newest verified copy of each EU trusted list (`EU`: the LOTL), shared by every process; verified again when read. */
export interface TrustedListsTable {
  territory: string;
  /** The signed XML as fetched. */
  xml: ColumnType<Uint8Array, Uint8Array, Uint8Array>;
  /** SHA-256 (hex) of `xml`. */
  sha256: string;
  /** TSLSequenceNumber. */
  sequence: number | null;
  issued_at: Timestamp;
  next_update: ColumnType<Date | null, Date | string | null, Date | string | null>;
  source_url: string;
  /** When this copy was last fetched from `source_url`. */
  fetched_at: Timestamp;
}

/** #20: the pivot LOTLs followed after a LOTL signer rotation, oldest first; verified again from the pins when read. */
export interface TrustedListPivotsTable {
  url: string;
  position: number;
  /** The signed XML as fetched. */
  xml: ColumnType<Uint8Array, Uint8Array, Uint8Array>;
  /** SHA-256 (hex) of `xml`. */
  sha256: string;
  /** TSLSequenceNumber. */
  sequence: number | null;
  fetched_at: Timestamp;
}

/** #20: when the next trusted-list refresh is due (one row, `lotl`); taken with a conditional UPDATE. */
export interface TrustedListRefreshTable {
  name: string;
  due_at: Timestamp;
  claimed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  claimed_by: ColumnType<string | null, string | null | undefined, string | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
}
