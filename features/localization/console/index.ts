// The console pages of this feature (the grid of keys and languages), gathered by console/src/routes.ts.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [{ pattern: '/localization', load: () => import('./localization') }],
  menu: [{ path: '/localization', label: 'Localization', position: 60 }],
} satisfies FeatureConsole
