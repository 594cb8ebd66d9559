// The console pages of this feature (validated runs: the list and one run), gathered by console/src/routes.ts.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [
    { pattern: '/runs', load: () => import('./runs') },
    { pattern: '/runs/:runId', load: () => import('./run') },
  ],
  menu: [{ path: '/runs', label: 'Validated runs', position: 40 }],
} satisfies FeatureConsole
