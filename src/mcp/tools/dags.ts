// Placeholder until the tool helper's branch lands (issue 21): no tools yet.
import type { ToolDef } from '../tool.ts';

export const dagTools: ToolDef[] = [];
