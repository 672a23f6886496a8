/** How the MCP server sizes its answers for an agent's context window (`SHEETPORT_MCP_*`, read by config.ts). */
export interface McpSettings {
  /** Rows a `query_rows` call returns at most (its default `limit` too). */
  maxRows: number;
  /** Characters of one text cell a listing shows before it is cut with a marker. */
  maxCellChars: number;
}

export const MCP_DEFAULTS: McpSettings = { maxRows: 50, maxCellChars: 500 };

export const MCP_ENV = {
  maxRows: 'SHEETPORT_MCP_MAX_ROWS',
  maxCellChars: 'SHEETPORT_MCP_MAX_CELL_CHARS',
} as const;

/** The settings an environment names; a value that is not a positive integer keeps the default. */
export function mcpFrom(env: Readonly<Record<string, string | undefined>>): { mcp: McpSettings } {
  const positive = (name: string, fallback: number) => {
    const raw = env[name];
    return raw !== undefined && /^[1-9][0-9]{0,6}$/.test(raw) ? Number(raw) : fallback;
  };
  return {
    mcp: {
      maxRows: Math.min(positive(MCP_ENV.maxRows, MCP_DEFAULTS.maxRows), 500),
      maxCellChars: positive(MCP_ENV.maxCellChars, MCP_DEFAULTS.maxCellChars),
    },
  };
}
