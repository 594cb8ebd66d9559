// The event types an endpoint can subscribe to: every event a feature's manifest declares, then the
// webhooks' own `webhook.test`. Read from the manifests when the feature registers, never listed here.
import { inListOrder, type FeatureManifest } from '../../platform/core/features.js'
import { TEST_EVENT } from './schemas.js'

/** One event type and the title a chat message shows for it. */
export interface WebhookEventInfo {
  type: string
  title: string
}

/** The app's event types, in the webhooks' list order (`inListOrder`), `webhook.test` last. */
export function webhookEvents(features: readonly FeatureManifest[]): WebhookEventInfo[] {
  const declared = inListOrder(
    features.flatMap((feature) => feature.events ?? []),
    (event) => event.type,
  )
  return [...declared.map(({ type, title }) => ({ type, title })), { ...TEST_EVENT }]
}
