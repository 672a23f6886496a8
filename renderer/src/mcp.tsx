import { useState } from 'preact/hooks';
import { api } from './api.ts';
import { CopyButton } from './copy-button.tsx';
import { Scrollable } from './scrollable.tsx';
import { ErrorNote } from './status.tsx';
import type { ApiKey, McpClientConfigs } from './types.ts';
import { useSubmit } from './use-submit.ts';

/** The clients the server's snippets are for (server/mcp/client-config.ts), in the order they are shown. */
const CLIENTS: { id: keyof McpClientConfigs; label: string; where: string }[] = [
  { id: 'claude_desktop', label: 'Claude Desktop', where: 'claude_desktop_config.json' },
  { id: 'vscode', label: 'VS Code', where: '.vscode/mcp.json' },
  { id: 'cursor', label: 'Cursor', where: '~/.cursor/mcp.json' },
  { id: 'http', label: 'Streamable HTTP', where: 'any client that takes a URL, while this server runs' },
];

type Made = ApiKey & { key: string; data_dir: string; configs: McpClientConfigs };

/** An AI assistant (MCP client) set up: a new key of the scope chosen, and each client's config to copy. */
export function McpSection() {
  const [scope, setScope] = useState<'read' | 'read_write'>('read');
  const [made, setMade] = useState<Made | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    setMade(await api<Made>('/admin/mcp-config', { method: 'POST', body: { scope } }));
  });
  return (
    <section aria-labelledby="mcp-title">
      <h2 id="mcp-title">Use with an AI assistant (MCP)</h2>
      <p>
        SheetPort is an MCP server: Claude Desktop, VS Code, Cursor and other assistants can list your sheets,
        query rows and, with a read_write key, change them, under the same keys, limits and request log as the
        HTTP API. Each config starts <code>sheetport mcp</code> on this data dir with a new API key of its
        own.
      </p>
      <form class="card form-row" onSubmit={submit} aria-labelledby="mcp-form-title">
        <h3 id="mcp-form-title">Create a key for an assistant</h3>
        <fieldset>
          <legend>The assistant may</legend>
          <label class="inline">
            <input
              type="radio"
              name="mcp-scope"
              checked={scope === 'read'}
              onChange={() => setScope('read')}
            />
            only read rows (read)
          </label>
          <label class="inline">
            <input
              type="radio"
              name="mcp-scope"
              checked={scope === 'read_write'}
              onChange={() => setScope('read_write')}
            />
            read and change rows (read_write)
          </label>
        </fieldset>
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create key and show the config'}
        </button>
        {error ? <ErrorNote error={error} /> : null}
      </form>
      {made ? <Configs made={made} onDone={() => setMade(null)} /> : null}
    </section>
  );
}

function Configs({ made, onDone }: { made: Made; onDone: () => void }) {
  return (
    <div class="card once" role="status">
      <h3>
        New {made.scope} key {made.id}
      </h3>
      <p>
        Copy the config for your assistant now: the key in it is shown this once. Keep it private; revoke the
        key under Keys to cut the assistant off.
      </p>
      {CLIENTS.map((client) => {
        const snippet = made.configs[client.id];
        if (!snippet) return null;
        const text = JSON.stringify(snippet, null, 2);
        return (
          <div key={client.id}>
            <h4>{client.label}</h4>
            <p class="muted">{client.where}</p>
            <Scrollable class="payload" label={`${client.label} config`}>
              <pre>{text}</pre>
            </Scrollable>
            <CopyButton text={text} label={`Copy the ${client.label} config`} />
          </div>
        );
      })}
      <button type="button" class="small" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
