// What a dashboard page handler gets and answers, and the route table's row (routes.ts registers the rows).
import type { AccountRow, DashboardSessionRow, MemberRow } from '../../db/schema.ts';
import type { Auth, Services } from '../../http/context.ts';
import type { Action } from './permissions.ts';
import { renderShell, type SectionId, type Shell } from './render.ts';

/** The signed-in member, their account and session, the request's form and query. */
export interface PageContext {
  services: Services;
  member: MemberRow;
  account: AccountRow;
  session: DashboardSessionRow;
  shell: Shell;
  /** The billing and key domain functions take the API's Auth: the account and the console's mode. */
  auth: Auth;
  params: Record<string, string>;
  query: Record<string, string>;
  /** The POSTed form (urlencoded), {} on GET. */
  form: Record<string, string>;
}

/** `file`: bytes sent as they are (an original, a rendered page), `Cache-Control: private, no-store`; `download` names an attachment. */
export type PageResult = { status?: number; html: string } | { redirect: string; cookies?: string[] } | { file: Uint8Array; type: string; download?: string };

/** One row of the route table: part 2 adds its sections' rows (reviews, webhooks, links, dossiers). */
export interface DashboardRoute {
  method: 'GET' | 'POST';
  /** Under /dashboard. */
  path: string;
  /** The permission this route needs (permissions.ts); checked before the handler runs. */
  action: Action;
  section: SectionId | null;
  handle(ctx: PageContext): Promise<PageResult>;
}

/** Renders a signed-in page of `section` (the usual end of a handler). */
export const page = (ctx: PageContext, section: SectionId | null, title: string, body: string, status = 200): PageResult => ({
  status,
  html: renderShell(ctx.shell, section, title, body),
});
