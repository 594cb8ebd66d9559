// The console pages of this feature (the news entries), gathered by console/src/routes.ts.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [{ pattern: '/news', load: () => import('./news') }],
  menu: [{ path: '/news', label: 'News', position: 70 }],
} satisfies FeatureConsole
