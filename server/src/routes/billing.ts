import * as billing from '../domain/billing.ts';
import { requireAuth, type Handler } from '../http/context.ts';

export const getBalance: Handler = async (ctx) => ({ status: 200, body: await billing.getBalance(ctx.services, requireAuth(ctx)) });

export const getUsage: Handler = async (ctx) => {
  const q = ctx.query as { from?: string; to?: string; type?: string; kind?: 'analysis' | 'classification' | 'batch_analysis' };
  return { status: 200, body: await billing.getUsage(ctx.services, requireAuth(ctx), q) };
};
