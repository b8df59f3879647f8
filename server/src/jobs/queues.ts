// The names of the durable queues (jobs.queue), in one place: the workers, the modules that enqueue and the metrics
// (metrics.ts, per-queue depths) all name them from here, so none imports another to learn a name.

/** Analyses to read and settle (domain/analysis/pipeline.ts). */
export const ANALYSIS_QUEUE = 'analysis';
/** Follow-ups of an analysis's lifecycle that failed when it happened, tried again (domain/lifecycle.ts). */
export const FOLLOW_UP_QUEUE = 'analysis_follow_up';
/** A verification link's emails (domain/links/service.ts). */
export const LINK_EMAIL_QUEUE = 'link_email';
