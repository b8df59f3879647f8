// The reviews section of the dashboard (#19, part 2): not built yet.
import { coming, type DashboardRoute } from '../context.ts';

export const reviewRoutes: DashboardRoute[] = [coming('reviews', 'reviews.view', 'nav.reviews')];
