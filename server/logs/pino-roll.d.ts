// pino-roll ships no types; this is the part SheetPort uses (its default export builds a sonic-boom stream).
declare module 'pino-roll' {
  import type { EventEmitter } from 'node:events';

  interface RollingStream extends EventEmitter {
    write(chunk: string): boolean;
    flush(callback?: (err?: Error) => void): void;
    end(): void;
    readonly file: string;
    readonly destroyed: boolean;
  }

  interface PinoRollOptions {
    file: string;
    size?: string | number;
    frequency?: 'daily' | 'hourly' | number;
    extension?: string;
    limit?: { count: number; removeOtherLogFiles?: boolean };
    mkdir?: boolean;
    /** sonic-boom: file mode of every file it opens (the first and each rotated one). */
    mode?: number;
    /** sonic-boom: false writes asynchronously, off the request's path. */
    sync?: boolean;
    minLength?: number;
  }

  export default function pinoRoll(options: PinoRollOptions): Promise<RollingStream>;
}
