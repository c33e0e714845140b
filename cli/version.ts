/** Tool version written into traces; keep in step with package.json. */
export const TOOL_VERSION = '0.1.0';
