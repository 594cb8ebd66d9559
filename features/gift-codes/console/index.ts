// The console pages of this feature (gift codes: the list and one code), gathered by console/src/routes.ts.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [
    { pattern: '/gift-codes', load: () => import('./gift-codes') },
    { pattern: '/gift-codes/:code', load: () => import('./gift-code') },
  ],
  menu: [{ path: '/gift-codes', label: 'Gift codes', position: 80 }],
} satisfies FeatureConsole
