// The console pages of this feature (webhooks: the list and one webhook's deliveries), gathered by console/src/routes.ts.
// Owners only: the server answers other roles 403 on their admin routes anyway.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [
    { pattern: '/webhooks', load: () => import('./webhooks'), owner: true },
    { pattern: '/webhooks/:id', load: () => import('./webhook-deliveries'), owner: true },
  ],
  menu: [{ path: '/webhooks', label: 'Webhooks', owner: true, position: 160 }],
} satisfies FeatureConsole
