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
}

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
  endpoint_id: string;
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
  succeeded: boolean;
}

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

export interface DB {
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
