/**
 * Node's `http` module, loaded the CommonJS way. An ES import of `node:http` builds that module's ES facade,
 * which reads every export once, and three of them (`WebSocket`, `CloseEvent`, `MessageEvent`) are getters that
 * load Node's bundled fetch (undici): about 30 ms of every start, for classes the service never uses. Types
 * come from `import type`, which loads nothing (.dependency-cruiser.mjs keeps every other import type-only).
 */
import { createRequire } from 'node:module';

export const http: typeof import('node:http') = createRequire(import.meta.url)('node:http');
