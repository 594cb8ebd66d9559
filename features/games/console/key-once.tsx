import { useState } from 'preact/hooks'

/** A secret as the server answered it once (a new game's first key, a new key), with a copy button. */
export function KeyOnce({ secret, what, onClose }: { secret: string; what: string; onClose: () => void }) {
  const [copied, setCopied] = useState<boolean | null>(null)
  return (
    <section class="panel key-once" aria-label="New app key">
      <p>
        The app key of {what}, shown <strong>this once</strong>: put it in the game's build as its{' '}
        <code>X-API-Key</code>. The server keeps only its hash.
      </p>
      <p>
        <code data-testid="app-key">{secret}</code>
      </p>
      <button
        type="button"
        onClick={() =>
          Promise.resolve(navigator.clipboard?.writeText(secret)).then(
            () => setCopied(navigator.clipboard !== undefined),
            () => setCopied(false),
          )
        }
      >
        Copy key
      </button>{' '}
      <span class="muted" role="status">
        {copied === true ? 'Copied' : copied === false ? 'Copy refused by the browser: select the key and copy it' : ''}
      </span>{' '}
      <button type="button" onClick={onClose}>
        I have kept it
      </button>
    </section>
  )
}
