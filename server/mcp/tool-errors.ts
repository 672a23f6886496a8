/**
 * The SDK's own refusals of a tool call (arguments the tool's schema refuses, a tool the session does not offer)
 * come back as a bare tool error, `{content: [{type: 'text', text}], isError: true}`, without the code an agent
 * corrects its call by. SheetPort answers them like the row API's refusals instead (session.ts says how).
 *
 * McpServer builds those answers in a method that is private, and offers no hook for them; its tools/call
 * handler cannot be wrapped either (the Server refuses a second handler, and does not give the first one out).
 * So the session's transport is wrapped, through the SDK's public `Transport` interface: an answer to a
 * tools/call that is a tool error without structured content (every SheetPort tool error has some, tool-results.ts)
 * is the SDK's, and is rewritten on its way out. Every other message passes as it is.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/** What an SDK refusal (its text) is answered with instead. */
export type ToolErrorAnswer = (message: string) => CallToolResult | Promise<CallToolResult>;

export class ToolErrorsTransport implements Transport {
  readonly #inner: Transport;
  readonly #answer: ToolErrorAnswer;
  /** The tools/call requests not answered yet, by id: only their answers are looked at. */
  readonly #toolCalls = new Set<RequestId>();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(inner: Transport, answer: ToolErrorAnswer) {
    this.#inner = inner;
    this.#answer = answer;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  /** Starts the inner transport, its callbacks passed on to the server's (after any set on it before). */
  start(): Promise<void> {
    const { onclose, onerror } = this.#inner;
    this.#inner.onclose = () => {
      onclose?.();
      this.onclose?.();
    };
    this.#inner.onerror = (error) => {
      onerror?.(error);
      this.onerror?.(error);
    };
    this.#inner.onmessage = (message, extra) => {
      if (isJSONRPCRequest(message) && message.method === 'tools/call') this.#toolCalls.add(message.id);
      this.onmessage?.(message, extra);
    };
    return this.#inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(await this.#answered(message), options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  async #answered(message: JSONRPCMessage): Promise<JSONRPCMessage> {
    const answer = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    if (!answer || message.id === undefined || !this.#toolCalls.delete(message.id)) return message;
    if (!isJSONRPCResultResponse(message)) return message;
    const text = sdkRefusal(message.result);
    return text === null ? message : { ...message, result: await this.#answer(text) };
  }
}

/** The text of a tool error the SDK made (no structured content, one text part); null for anything else. */
function sdkRefusal(result: Record<string, unknown>): string | null {
  if (result.isError !== true || result.structuredContent !== undefined) return null;
  const content = result.content as { type?: string; text?: unknown }[] | undefined;
  const text = content?.length === 1 && content[0]?.type === 'text' ? content[0].text : undefined;
  return typeof text === 'string' ? text : null;
}
