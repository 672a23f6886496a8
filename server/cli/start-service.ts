/**
 * Starting the service for `serve` and `demo` (`npm start`): the same as startServer, with the failures a person
 * causes by choosing a port or host (busy port, unknown host) turned into one clear sentence instead of the
 * socket's own error.
 */
import { AppError } from '../errors.ts';
import { type RunningServer, type ServerConfig, startServer } from '../index.ts';

export async function startService(config: ServerConfig): Promise<RunningServer> {
  try {
    return await startServer(config);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new AppError('conflict', `Port ${config.port} is already in use; pick another with --port.`);
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      throw new AppError('invalid_parameter', `Cannot listen on host ${config.host}.`);
    }
    throw err;
  }
}
