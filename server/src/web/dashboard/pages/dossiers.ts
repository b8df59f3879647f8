// The dossiers section of the dashboard (#19, part 2): not built yet.
import { coming, type DashboardRoute } from '../context.ts';

export const dossierRoutes: DashboardRoute[] = [coming('dossiers', 'dossiers.view', 'nav.dossiers')];
