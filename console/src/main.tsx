import { render, type ComponentType } from 'preact'
import { useEffect, useId, useState } from 'preact/hooks'
import { api, ApiError, chooseGame, chosenGame, get, whenSignedOut } from './api'
import { roleIn, settleGame, type GameItem, type RolesInGames } from './games'
import type { PageProps } from './page'
import { NAV, resolve } from './routes'
import type { Page, Session } from './types'
// The shell takes its few building blocks file by file: the rest of ui/ loads with the first page.
import { TextField } from './ui/forms'
import { GameContext, useGame, type GameChoice } from './ui/game'
import { ErrorNote, useLoad } from './ui/load'
import { OperatorContext } from './ui/operator'
import './style.css'

// ---- theme: the system's by default, or the reader's choice, remembered ----

type Theme = 'system' | 'light' | 'dark'
const THEME_KEY = 'outpost-console-theme'

function applyTheme(theme: Theme) {
  if (theme === 'system') delete document.documentElement.dataset.theme
  else document.documentElement.dataset.theme = theme
}

function storedTheme(): Theme {
  try {
    const value = localStorage.getItem(THEME_KEY)
    return value === 'light' || value === 'dark' ? value : 'system'
  } catch {
    return 'system'
  }
}

function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(storedTheme)
  useEffect(() => {
    applyTheme(theme)
    try {
      if (theme === 'system') localStorage.removeItem(THEME_KEY)
      else localStorage.setItem(THEME_KEY, theme)
    } catch {
      // Private windows may refuse storage: the choice then lasts for this page only.
    }
  }, [theme])
  const next: Record<Theme, Theme> = { system: 'light', light: 'dark', dark: 'system' }
  return (
    <button type="button" class="theme" onClick={() => setTheme(next[theme])} aria-label={`Theme: ${theme}`}>
      Theme: {theme}
    </button>
  )
}

/** The signed-in operator; a non-owner's session also says the role held in each game. */
type Operator = Session & RolesInGames

// ---- hash routing: works under any path prefix, needs nothing from the server ----

function currentPath(): string {
  const hash = window.location.hash.replace(/^#/, '')
  return hash.startsWith('/') ? hash : '/'
}

function useHashPath(): string {
  const [path, setPath] = useState(currentPath)
  useEffect(() => {
    const update = () => setPath(currentPath())
    window.addEventListener('hashchange', update)
    return () => window.removeEventListener('hashchange', update)
  }, [])
  return path
}

function PageHost({ path, operator }: { path: string; operator: Operator }) {
  const match = resolve(path, operator.role)
  const [loaded, setLoaded] = useState<{ key: string; Component: ComponentType<PageProps> } | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    if (!match) return
    let live = true
    setError(null)
    match.route.load().then(
      (module) => live && setLoaded({ key: match.route.pattern, Component: module.default }),
      (caught) => live && setError(caught),
    )
    return () => {
      live = false
    }
  }, [match?.route.pattern])
  useEffect(() => {
    // A new page: move focus to its title so a screen reader announces it and Tab starts there.
    const title = document.getElementById('page-title')
    title?.focus()
  }, [path, loaded?.key])
  if (!match) {
    return (
      <section>
        <h1 id="page-title" tabIndex={-1}>
          Not found
        </h1>
        <p>
          No console page at <code>{path}</code>. <a href="#/">Go to the overview</a>.
        </p>
      </section>
    )
  }
  if (error) return <ErrorNote error={error} />
  if (!loaded || loaded.key !== match.route.pattern) return <p class="muted">Loading…</p>
  return <loaded.Component params={match.params} />
}

/** The game switcher: the games the operator holds a role in, the chosen one's name always in view. */
function GameSwitcher() {
  const { game, name, games, choose } = useGame()
  const id = useId()
  if (!games || games.length === 0) {
    return (
      <span class="game">
        Game <strong data-game={game}>{name}</strong>
      </span>
    )
  }
  return (
    <label class="game">
      <span id={`${id}-label`}>Game</span>
      <select
        value={game}
        data-game={game}
        aria-labelledby={`${id}-label`}
        onChange={(e) => choose(e.currentTarget.value)}
      >
        {games.map((g) => (
          <option key={g.id} value={g.id}>
            {g.name}
          </option>
        ))}
      </select>
    </label>
  )
}

/** The chosen game and its switch: a new game remounts the page, which loads that game's data. */
function useGameChoice(path: string, role: Operator['role']): GameChoice {
  const [game, setGame] = useState(chosenGame)
  const [tick, setTick] = useState(0)
  const listed = useLoad(() => get<Page<GameItem>>('/games'), [tick])
  const games = listed.data?.items
  const choose = (id: string) => {
    if (id === game) return
    chooseGame(id)
    setGame(id)
    // A page of one record (a player, a board, a crash group) names the other game's record: its list instead.
    const parts = path.split('?')[0].split('/').filter(Boolean)
    if (parts.length > 1) window.location.hash = resolve(`/${parts[0]}`, role) ? `#/${parts[0]}` : '#/'
  }
  useEffect(() => {
    // A game the operator may no longer open (deleted, or the role taken away): default, or the first listed.
    if (games) choose(settleGame(game, games))
  }, [games])
  const name = games?.find((g) => g.id === game)?.name ?? game
  return { game, name, games, choose, reloadGames: () => setTick((n) => n + 1) }
}

function Shell({ operator, onSignOut }: { operator: Operator; onSignOut: () => void }) {
  const path = useHashPath()
  const choice = useGameChoice(path, operator.role)
  // A non-owner's rights are those of its role in the chosen game: the pages disable what it may not do.
  const role = roleIn(operator, choice.game)
  const section = `/${path.split('/')[1] ?? ''}`
  // On a narrow screen the navigation folds behind the "Menu" button; a page change folds it again.
  const [menuOpen, setMenuOpen] = useState(false)
  useEffect(() => setMenuOpen(false), [path])
  return (
    <OperatorContext.Provider value={{ ...operator, role }}>
      <GameContext.Provider value={choice}>
        <a
          class="skip"
          href="#main"
          onClick={(e) => (e.preventDefault(), document.getElementById('page-title')?.focus())}
        >
          Skip to content
        </a>
        <div class="shell">
          <header class="top">
            <button
              type="button"
              class="menu-toggle"
              aria-expanded={menuOpen}
              aria-controls="console-nav"
              onClick={() => setMenuOpen(!menuOpen)}
            >
              Menu
            </button>
            <span class="brand">Outpost</span>
            <GameSwitcher />
            <span class="who">
              {operator.username} <span class={`role role-${role}`}>{role}</span>
            </span>
            <ThemeToggle />
            <button type="button" onClick={onSignOut}>
              Sign out
            </button>
          </header>
          <nav class="side" id="console-nav" aria-label="Console" data-open={String(menuOpen)}>
            <ul>
              {NAV.filter((item) => !item.owner || operator.role === 'owner').map((item) => (
                <li key={item.path}>
                  <a href={`#${item.path}`} aria-current={section === item.path ? 'page' : undefined}>
                    {item.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <main id="main">
            <PageHost key={choice.game} path={path} operator={operator} />
          </main>
        </div>
      </GameContext.Provider>
    </OperatorContext.Provider>
  )
}

function SignIn({ onSignedIn }: { onSignedIn: (operator: Operator) => void }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [code, setCode] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const body: Record<string, string> = { username, password }
      if (code.trim()) body.totp = code.trim()
      onSignedIn(await api<Operator>('POST', '/session', body))
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="signin" id="main">
      <form onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Outpost console</h1>
        <TextField label="Username" value={username} onValue={setUsername} autoComplete="username" required />
        <TextField
          label="Password"
          type="password"
          value={password}
          onValue={setPassword}
          autoComplete="current-password"
          required
        />
        <TextField
          label="Code"
          value={code}
          onValue={setCode}
          inputMode="numeric"
          autoComplete="one-time-code"
          hint="The 6-digit code of your authenticator app, if you set one up"
        />
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
        <ErrorNote error={error} />
        <p class="muted small">
          No account yet? On the server: <code>npm run operator -- add NAME --role owner</code>
        </p>
      </form>
      <ThemeToggle />
    </main>
  )
}

function App() {
  const [operator, setOperator] = useState<Operator | null | undefined>(undefined)
  const [error, setError] = useState<unknown>(null)
  // A server owner's first page is the list of games; an address that names a page keeps it.
  const signedIn = (who: Operator) => {
    if (who.role === 'owner' && window.location.hash.replace(/^#/, '') === '') history.replaceState(null, '', '#/games')
    setOperator(who)
  }
  useEffect(() => {
    whenSignedOut(() => setOperator(null))
    api<Operator>('GET', '/session').then(signedIn, (caught) => {
      if (caught instanceof ApiError && (caught.status === 401 || caught.status === 403)) setOperator(null)
      else {
        setError(caught)
        setOperator(null)
      }
    })
  }, [])
  if (operator === undefined) return <p class="muted boot">Loading…</p>
  if (!operator)
    return (
      <>
        <SignIn onSignedIn={signedIn} />
        {error ? <ErrorNote error={error} /> : null}
      </>
    )
  const signOut = () => {
    api('DELETE', '/session').finally(() => setOperator(null))
  }
  return <Shell operator={operator} onSignOut={signOut} />
}

applyTheme(storedTheme())
render(<App />, document.getElementById('app')!)
