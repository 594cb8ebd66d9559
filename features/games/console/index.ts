// The console pages of this feature (games: the server's games, the chosen game's app keys, its
// settings, and the promotion of another game's content into it), gathered by console/src/routes.ts. Owners only: the server answers other roles 403 anyway.
import type { FeatureConsole } from '../../../console/src/page'

/** Each page is its own chunk, loaded on first visit; the menu keeps its place by position. */
export default {
  routes: [
    { pattern: '/games', load: () => import('./games'), owner: true },
    { pattern: '/keys', load: () => import('./keys'), owner: true },
    { pattern: '/game-settings', load: () => import('./game-settings'), owner: true },
    { pattern: '/promote', load: () => import('./promote'), owner: true },
  ],
  menu: [
    { path: '/games', label: 'Games', owner: true, position: 5 },
    { path: '/keys', label: 'App keys', owner: true, position: 145 },
    { path: '/game-settings', label: 'Game settings', owner: true, position: 148 },
    { path: '/promote', label: 'Promote', owner: true, position: 149 },
  ],
} satisfies FeatureConsole
