// The console pages of this feature (the operators and the audit log), gathered by console/src/routes.ts.
// Owners only: the server answers other roles 403 on their admin routes anyway.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [
    { pattern: '/operators', load: () => import('./operators'), owner: true },
    { pattern: '/audit', load: () => import('./audit'), owner: true },
  ],
  menu: [
    { path: '/operators', label: 'Operators', owner: true, position: 130 },
    { path: '/audit', label: 'Audit log', owner: true, position: 140 },
  ],
} satisfies FeatureConsole
