import type { WebhookEventType, WebhookFormat } from '../../schemas/webhooks.js'

/**
 * The bodies sent: `standard` is the event as JSON (`{ type, timestamp, data }`), signed; `discord`
 * and `slack` are a message a person reads in the channel, with a link to the console's page.
 */
export interface StoredEvent {
  type: WebhookEventType
  /** ISO 8601 UTC: when the change happened. */
  timestamp: string
  data: Record<string, unknown>
}

const TITLES: Record<WebhookEventType, string> = {
  'leaderboard.new_leader': 'New leader',
  'crash.group_created': 'New crash',
  'crash.group_regressed': 'Crash regressed',
  'feedback.submitted': 'Feedback submitted',
  'run.flagged': 'Run flagged',
  'gift_code.exhausted': 'Gift code used up',
  'player.banned': 'Player banned',
  'email.failed': 'E-mail failed',
  'webhook.test': 'Test event',
}

const text = (value: unknown): string => (value === undefined || value === null ? '' : String(value))
const seg = (value: unknown) => encodeURIComponent(text(value))

/** The console page an event concerns (hash route), or the webhooks page. */
export function consolePath(event: StoredEvent): string {
  const d = event.data
  switch (event.type) {
    case 'leaderboard.new_leader':
      return `/leaderboards/${seg(d.board)}`
    case 'crash.group_created':
    case 'crash.group_regressed':
      return `/crashes/${seg(d.groupId)}`
    case 'feedback.submitted':
      return '/feedback'
    case 'run.flagged':
      return `/runs/${seg(d.runId)}`
    case 'gift_code.exhausted':
      return `/gift-codes/${seg(d.code)}`
    case 'player.banned':
      return `/players/${seg(d.userId)}`
    case 'email.failed':
      return '/email'
    case 'webhook.test':
      return '/webhooks'
  }
}

/** One line a person reads: what happened, to whom, where. */
export function summary(event: StoredEvent): string {
  const d = event.data
  const player = d.playerName ? `${text(d.playerName)}` : text(d.userId)
  switch (event.type) {
    case 'leaderboard.new_leader':
      return `${player} took first place on ${text(d.board)} with ${text(d.score)}`
    case 'crash.group_created':
      return `New crash group in ${text(d.appVersion) || 'an unknown version'}: ${text(d.message)}`
    case 'crash.group_regressed':
      return `A resolved crash is back in ${text(d.appVersion) || 'an unknown version'}: ${text(d.message)}`
    case 'feedback.submitted':
      return `${player || 'A player'} filed ${text(d.category) || 'feedback'}: ${text(d.title)}`
    case 'run.flagged':
      return `A run by ${player} on ${text(d.ruleSet) || 'a validated action'} was marked ${text(d.status)}${d.reason ? ` (${text(d.reason)})` : ''}`
    case 'gift_code.exhausted':
      return `Gift code ${text(d.code)} has been redeemed ${text(d.maxRedemptions)} times and is used up`
    case 'player.banned':
      return `${player} was banned${d.reason ? `: ${text(d.reason)}` : ''}`
    case 'email.failed':
      return `An e-mail to ${text(d.recipient)} failed for good: ${text(d.reason)}`
    case 'webhook.test':
      return 'Outpost can reach this webhook'
  }
}

const FIELDS: Array<[string, string]> = [
  ['playerName', 'Player'],
  ['userId', 'Player id'],
  ['board', 'Board'],
  ['score', 'Score'],
  ['appVersion', 'Version'],
  ['platform', 'Platform'],
  ['status', 'Status'],
  ['reason', 'Reason'],
]

/** The request body for an endpoint's format, with the console link built on `publicUrl`. */
export function formatBody(event: StoredEvent, format: WebhookFormat, publicUrl: string): string {
  if (format === 'standard') return JSON.stringify(event)
  const link = `${publicUrl.replace(/\/+$/, '')}/console/#${consolePath(event)}`
  const title = TITLES[event.type]
  const line = summary(event).slice(0, 1500)
  if (format === 'slack') return JSON.stringify({ text: `*${title}* · ${line}\n<${link}|Open in the Outpost console>` })
  const fields = FIELDS.filter(([key]) => text(event.data[key]) !== '').map(([key, name]) => ({
    name,
    value: text(event.data[key]).slice(0, 1000),
    inline: true,
  }))
  return JSON.stringify({
    content: `**${title}**: ${line}`,
    embeds: [{ title, description: line, url: link, timestamp: event.timestamp, fields }],
  })
}
