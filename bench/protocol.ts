/** What a benchmark target process tells the parent once it is listening (over the fork IPC channel). */
export interface ReadyMessage {
  type: 'ready';
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Case name -> path (with query) to load. */
  targets: Record<string, string>;
  /** Headers every request needs (the API key). */
  headers: Record<string, string>;
  /** Optional notes for the report (setup timings). */
  notes?: string[];
}

export interface FailedMessage {
  type: 'failed';
  error: string;
}

/** The server process's CPU time so far (µs), sent in answer to `{ type: 'cpu?' }`. */
export interface CpuMessage {
  type: 'cpu';
  micros: number;
}

/** The limiter middleware's own CPU per request (µs), in answer to `{ type: 'limiter-cost?' }`. */
export interface LimiterCostMessage {
  type: 'limiter-cost';
  micros: number;
}

export type ChildMessage = ReadyMessage | FailedMessage | CpuMessage | LimiterCostMessage;
