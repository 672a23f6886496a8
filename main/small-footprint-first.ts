/**
 * Imported first by the main process (index.ts), so V8's heap sizing for a long-lived, small service is set
 * before the server's modules load (server/small-footprint.ts).
 */
import { favourSmallFootprint } from '../server/small-footprint.ts';

favourSmallFootprint();
