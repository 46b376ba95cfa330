// The MCP transport writes a tool result whose payload came rendered (cron_list_jobs, cut from the
// shared `/jobs` rendering) by splicing those bytes in: the reply must be exactly what JSON.stringify
// makes of it, and anything else is serialised as usual.
import { describe, expect, it } from 'vitest';
import type { CallResult } from '../../src/mcp/registry.ts';
import { RENDERED } from '../../src/mcp/tool.ts';
import { replyBytes } from '../../src/mcp/transport.ts';

const payload = {
  jobs: [
    { name: 'a "quoted" job', schedule: '*/5 * * * *', next: null, tags: ['é', '✓', '\u2028'] },
    { name: 'b', nested: { deep: [1, 2, { three: true }] }, empty: {} },
  ],
  page: { offset: 0, limit: 2, total: 2, returned: 2, nextOffset: null },
};
const utf8 = (v: unknown) => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));
const text = (b: Uint8Array) => new TextDecoder().decode(b);

// In pieces, as a tool cuts them: the splice writes them in order.
const rendered = (structuredContent: Record<string, unknown>, json: Uint8Array): CallResult => {
  const result: CallResult = {
    content: [{ type: 'text', text: '2 matching job(s); 2 returned' }],
    structuredContent,
  };
  result[RENDERED] = [json.subarray(0, 5), json.subarray(5, 9), json.subarray(9)];
  return result;
};

describe('replyBytes', () => {
  it('splices a rendered payload into exactly the text JSON.stringify makes of the reply', () => {
    for (const id of [1, 'req-7', null]) {
      const body = { jsonrpc: '2.0', id, result: rendered(payload, utf8(payload)) };
      expect(text(replyBytes(body))).toBe(JSON.stringify(body));
    }
  });

  it('writes the rendered bytes, not the objects, when both are given', () => {
    // A marker that differs from the objects shows which one went out.
    const body = { jsonrpc: '2.0', id: 1, result: rendered(payload, utf8('{"marker":true}')) };
    expect(JSON.parse(text(replyBytes(body))).result.structuredContent).toEqual({ marker: true });
  });

  it('serialises as usual without a rendering, or when the payload is not the last key', () => {
    const plain = { jsonrpc: '2.0', id: 2, result: { content: [], structuredContent: payload } };
    expect(text(replyBytes(plain))).toBe(JSON.stringify(plain));
    const error = { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'invalid params' } };
    expect(text(replyBytes(error))).toBe(JSON.stringify(error));
    const late = rendered(payload, utf8('{"marker":true}'));
    const reordered = {
      structuredContent: late.structuredContent,
      content: late.content,
      [RENDERED]: late[RENDERED],
    };
    const body = { jsonrpc: '2.0', id: 4, result: reordered };
    expect(text(replyBytes(body))).toBe(JSON.stringify(body));
  });
});
