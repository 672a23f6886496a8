/**
 * The optional public tunnel: a provider gives a public HTTPS URL that forwards to a local port. SheetPort points
 * it at the tunnel-only listener (switch.ts), which serves `/api` and `/v1` and nothing else. ngrok.ts is the real
 * provider; tests pass a fake (the provider's cloud cannot be reached from a test).
 */

export interface TunnelProvider {
  /** Shown in messages ("ngrok"). */
  readonly name: string;
  /** Open a public URL forwarding to `127.0.0.1:<localPort>`; rejects when the provider refuses or is unreachable. */
  start(options: { localPort: number; authtoken: string }): Promise<OpenTunnel>;
}

export interface OpenTunnel {
  /** The public base URL (`https://<name>.ngrok.app`). */
  readonly url: string;
  close(): Promise<void>;
}

/** `off` until opened; `failed` keeps the reason (the local server goes on serving either way). */
export type TunnelState = 'off' | 'starting' | 'open' | 'failed';

/** What the tray, `serve` and `GET /admin/tunnel` show about the tunnel. */
export interface TunnelStatus {
  state: TunnelState;
  /** The public base URL while open, else null. */
  url: string | null;
  /** Why it is not open, after a failed start; else null. Never holds the authtoken. */
  error: string | null;
  provider: string;
}
