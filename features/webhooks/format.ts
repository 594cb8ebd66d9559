import type { WebhookEventType, WebhookFormat } from './schemas.js'
import { discordParagraph, discordText, slackText, thousands, type Escaper } from './escape.js'

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
    default:
      return '/webhooks'
  }
}

/**
 * The most characters one value of `data` takes in a message line, once escaped: a line holds at most
 * three, so it stays far below the shortest limit it meets (Discord's 2000 for a message's content).
 */
const PIECE_MAX = 300

/**
 * One line a person reads: what happened, to whom, where. Every value of `data` goes through `e`,
 * the chat tool's escaper; the words around them are ours. An event written no sentence for here
 * shows its title (`heading`).
 */
export function summary(event: StoredEvent, e: Escaper, heading: string): string {
  const d = event.data
  const v = (value: unknown) => e(value, PIECE_MAX)
  const player = v(d.playerName || d.userId)
  const version = (value: unknown) => (text(value) ? v(value) : 'an unknown version')
  switch (event.type) {
    case 'leaderboard.new_leader':
      return `${player} took first place on ${v(d.boardName || d.board)} with ${v(thousands(d.score))}`
    case 'crash.group_created':
      return `New crash group in ${version(d.appVersion)}: ${v(d.message)}`
    case 'crash.group_regressed':
      return `A resolved crash is back in ${version(d.appVersion)}: ${v(d.message)}`
    case 'feedback.submitted':
      return `${player || 'A player'} filed ${text(d.category) ? v(d.category) : 'feedback'}: ${v(d.title)}`
    case 'run.flagged':
      return `A run by ${player} on ${v(d.board) || 'a validated action'} was marked ${v(d.status)}${d.reason ? ` (${v(d.reason)})` : ''}`
    case 'gift_code.exhausted':
      return `Gift code ${v(d.code)} has been redeemed ${v(thousands(d.maxRedemptions))} times and is used up`
    case 'player.banned':
      return `${player} was banned${d.reason ? `: ${v(d.reason)}` : ''}`
    case 'email.failed':
      return `An e-mail to ${v(d.recipient)} failed for good: ${v(d.reason)}`
    case 'webhook.test':
      return 'Outpost can reach this webhook'
    default:
      return heading
  }
}

/** The embed's fields: the data a person scans, each named by us, each value escaped. */
const FIELDS: Array<[string, string, (value: unknown) => string]> = [
  ['playerName', 'Player', text],
  ['userId', 'Player id', text],
  ['boardName', 'Board', text],
  ['board', 'Board key', text],
  ['score', 'Score', thousands],
  ['category', 'Category', text],
  ['appVersion', 'Version', text],
  ['platform', 'Platform', text],
  ['status', 'Status', text],
  ['reason', 'Reason', text],
]

/**
 * Discord's limits, in characters: message content, embed title, description, field value, and all
 * of an embed's text together. A field's value is held to half its limit, so that even ten of them
 * leave the description most of what the embed may carry.
 */
export const DISCORD_LIMITS = { content: 2000, title: 256, description: 4096, field: 1024, embed: 6000 } as const
const FIELD_MAX = DISCORD_LIMITS.field / 2
/** Slack shows up to 40,000 characters of `text` but asks for at most 4,000: a line and a message fit. */
const SLACK_MESSAGE_MAX = 2000

function discordBody(event: StoredEvent, link: string, heading: string): object {
  const d = event.data
  const line = summary(event, discordText, heading)
  const feedback = event.type === 'feedback.submitted'
  const title = feedback ? `${heading}: ${discordText(d.title, DISCORD_LIMITS.title - heading.length - 2)}` : heading
  const footer = `Outpost · ${event.type}`
  const fields = FIELDS.filter(([key]) => text(d[key]) !== '').map(([key, name, shown]) => ({
    name,
    value: discordText(shown(d[key]), FIELD_MAX),
    inline: true,
  }))
  const used = title.length + footer.length + fields.reduce((n, f) => n + f.name.length + f.value.length, 0)
  const room = Math.min(DISCORD_LIMITS.description, DISCORD_LIMITS.embed - used)
  return {
    content: `**${heading}**: ${line}`,
    // Nothing in the message pings anyone, whatever a player typed.
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title,
        description: (feedback && discordParagraph(d.message, room)) || line,
        url: link,
        timestamp: event.timestamp,
        fields,
        footer: { text: footer },
      },
    ],
  }
}

function slackBody(event: StoredEvent, link: string, title: string): object {
  const message =
    event.type === 'feedback.submitted' && text(event.data.message)
      ? `\n>${slackText(event.data.message, SLACK_MESSAGE_MAX)}`
      : ''
  const line = `*${title}* · ${summary(event, slackText, title)}${message}`
  // The link is ours, so it may use Slack's link syntax.
  const open = `\n<${link}|Open in the Outpost console>`
  return { text: `${line}${open}` }
}

/**
 * The request body for an endpoint's format, with the console link built on `publicUrl` and the title
 * from `titles` (the manifests' events), or the event's type.
 */
export function formatBody(
  event: StoredEvent,
  format: WebhookFormat,
  publicUrl: string,
  titles: ReadonlyMap<string, string>,
): string {
  if (format === 'standard') return JSON.stringify(event)
  const link = `${publicUrl.replace(/\/+$/, '')}/console/#${consolePath(event)}`
  const title = titles.get(event.type) ?? event.type
  return JSON.stringify(format === 'slack' ? slackBody(event, link, title) : discordBody(event, link, title))
}
