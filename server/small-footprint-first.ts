/**
 * Imported before anything else by whatever starts the service (`bin/sheetport.js`, the tray app's main
 * process, the benchmarks), so V8's heap sizing is in place before the server's modules load
 * (small-footprint.ts).
 */
import { favourSmallFootprint } from './small-footprint.ts';

favourSmallFootprint();
