/**
 * The ngrok provider, through `@ngrok/ngrok` (the ngrok agent as a Node library: its binary ships inside the
 * per-platform npm packages, nothing is downloaded at install or run time). The library is imported only when a
 * tunnel opens, so a service without a tunnel never loads it.
 *
 * The authtoken is passed in (it comes from the secrets provider); the library's NGROK_AUTHTOKEN and config-file
 * lookups are not used. ngrok keeps the `Host` header (the public name) and adds `X-Forwarded-For` with the
 * client's address, which the tunnel-only listener trusts for one hop.
 */
import type { OpenTunnel, TunnelProvider } from './provider.ts';

export const ngrokProvider: TunnelProvider = {
  name: 'ngrok',
  async start({ localPort, authtoken }): Promise<OpenTunnel> {
    const ngrok = await import('@ngrok/ngrok');
    const listener = await ngrok.forward({ addr: `127.0.0.1:${localPort}`, proto: 'http', authtoken });
    const url = listener.url();
    if (!url) {
      await listener.close().catch(() => {});
      throw new Error('ngrok opened a listener without a URL');
    }
    return { url, close: () => listener.close() };
  },
};
