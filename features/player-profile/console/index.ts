// The console pages of this feature (the cosmetics catalog), gathered by console/src/routes.ts.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [{ pattern: '/cosmetics', load: () => import('./cosmetics') }],
  menu: [{ path: '/cosmetics', label: 'Cosmetics', position: 30 }],
} satisfies FeatureConsole
