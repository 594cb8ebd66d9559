import { useState } from 'preact/hooks'
import { api, enc } from '../../../console/src/api'
import { ActionForm } from '../../../console/src/list'
import type { AdminEmail, EmailTemplate as Template, PreviewResponse as Preview } from '../../../console/src/types'
import {
  ConfirmButton,
  ErrorNote,
  PagedTable,
  SelectField,
  TextArea,
  TextField,
  Time,
  Title,
  useAction,
  usePaged,
  WriteButton,
} from '../../../console/src/ui'

const STATUSES = ['', 'pending', 'processing', 'sent', 'failed', 'cancelled'] as const

function parseObject(text: string): { value?: Record<string, unknown>; problem?: string } {
  try {
    const value = JSON.parse(text)
    if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: 'Must be a JSON object' }
    return { value }
  } catch (error) {
    return { problem: `Not valid JSON: ${(error as Error).message}` }
  }
}

const EXAMPLE = {
  defaultLanguage: 'en',
  clientCallable: false,
  variables: { name: 'player' },
  translations: { en: { subject: 'Hello {{name}}', html: '<p>Hello {{name}}</p>', text: 'Hello {{name}}' } },
}

function TemplateEditor({ template, onSaved }: { template?: Template; onSaved: () => void }) {
  const [slug, setSlug] = useState(template?.slug ?? '')
  const initial = template
    ? {
        defaultLanguage: template.defaultLanguage,
        clientCallable: template.clientCallable,
        variables: template.variables,
        translations: template.translations,
      }
    : EXAMPLE
  const [text, setText] = useState(JSON.stringify(initial, null, 2))
  const [language, setLanguage] = useState(template?.defaultLanguage ?? 'en')
  const [variables, setVariables] = useState('{}')
  const [preview, setPreview] = useState<Preview | null>(null)
  const previewAction = useAction()
  const body = parseObject(text)
  const vars = parseObject(variables)
  return (
    <section aria-labelledby="template-title">
      <h2 id="template-title">{template ? `Template ${template.slug}` : 'New template'}</h2>
      <ActionForm
        label="Template"
        disabled={!!body.problem || !slug.trim()}
        save={() => api('PUT', `/email-templates/${enc(slug.trim())}`, body.value)}
        onDone={onSaved}
      >
        {!template && <TextField label="Slug" value={slug} onValue={setSlug} required />}
        <TextArea label="Template (JSON)" value={text} onValue={setText} rows={12} invalid={!!body.problem} />
        {body.problem && <p class="error">{body.problem}</p>}
      </ActionForm>
      {template && (
        <div class="panel">
          <h3>Preview (saved version)</h3>
          <div class="filters">
            <TextField label="Language" value={language} onValue={setLanguage} />
            <TextArea
              label="Variables (JSON)"
              value={variables}
              onValue={setVariables}
              rows={3}
              invalid={!!vars.problem}
            />
            <button
              type="button"
              disabled={!!vars.problem || previewAction.busy}
              onClick={() =>
                previewAction.run(async () =>
                  setPreview(
                    await api<Preview>('POST', `/email-templates/${enc(template.slug)}/preview`, {
                      language,
                      variables: vars.value,
                    }),
                  ),
                )
              }
            >
              Preview
            </button>
          </div>
          <ErrorNote error={previewAction.error} />
          {preview && (
            <>
              <p>
                <strong>Subject:</strong> {preview.subject}
              </p>
              <iframe class="preview" title="HTML preview" sandbox="" srcdoc={preview.html} />
              <pre class="json">{preview.text}</pre>
            </>
          )}
        </div>
      )}
    </section>
  )
}

export default function EmailPage() {
  const templates = usePaged<Template>('/email-templates', {})
  const [status, setStatus] = useState<(typeof STATUSES)[number]>('')
  const queue = usePaged<AdminEmail>('/emails', { status })
  const [editing, setEditing] = useState<Template | 'new' | null>(null)
  const action = useAction()
  return (
    <>
      <Title
        actions={<WriteButton onClick={() => setEditing(editing === 'new' ? null : 'new')}>New template</WriteButton>}
      >
        E-mail
      </Title>
      {editing && (
        <TemplateEditor
          key={editing === 'new' ? 'new' : editing.slug}
          template={editing === 'new' ? undefined : editing}
          onSaved={templates.reload}
        />
      )}
      <ErrorNote error={action.error} />
      <h2>Templates</h2>
      <PagedTable
        paged={templates}
        caption="Templates"
        columns={[
          { label: 'Slug', render: (t) => <code>{t.slug}</code> },
          { label: 'Languages', render: (t) => Object.keys(t.translations).join(', ') },
          {
            label: 'Kind',
            render: (t) => (t.system ? 'system' : t.clientCallable ? 'client-callable' : 'server only'),
          },
          { label: 'Updated', render: (t) => <Time iso={t.updatedAt} /> },
          {
            label: 'Actions',
            render: (t) => (
              <span class="actions">
                <button type="button" onClick={() => setEditing(t)} aria-label={`Open ${t.slug}`}>
                  Open
                </button>
                {!t.system && (
                  <ConfirmButton
                    label={`Delete ${t.slug}`}
                    confirmLabel="Confirm delete"
                    onConfirm={() =>
                      action.run(() => api('DELETE', `/email-templates/${enc(t.slug)}`)).then(templates.reload)
                    }
                  />
                )}
              </span>
            ),
          },
        ]}
      />
      <h2>Queue</h2>
      <div class="filters">
        <SelectField label="Status" value={status} options={STATUSES} onValue={setStatus} />
      </div>
      <PagedTable
        paged={queue}
        caption="E-mail queue"
        empty="No e-mails."
        columns={[
          { label: 'Status', render: (e) => e.status },
          { label: 'Template', render: (e) => e.templateSlug },
          { label: 'Recipient', render: (e) => e.recipient },
          { label: 'Subject', render: (e) => e.subject },
          { label: 'Attempts', render: (e) => e.attempts },
          { label: 'Error', render: (e) => e.errorReason ?? '' },
          { label: 'Created', render: (e) => <Time iso={e.createdAt} /> },
        ]}
      />
    </>
  )
}
