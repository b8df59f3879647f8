// The webhooks section of the dashboard (#19, part 2): not built yet.
import { coming, type DashboardRoute } from '../context.ts';

export const webhookRoutes: DashboardRoute[] = [coming('webhooks', 'webhooks.view', 'nav.webhooks')];
