// The links section of the dashboard (#19, part 2): not built yet.
import { coming, type DashboardRoute } from '../context.ts';

export const linkRoutes: DashboardRoute[] = [coming('links', 'links.view', 'nav.links')];
