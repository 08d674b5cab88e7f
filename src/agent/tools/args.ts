// Validation of a tool call's arguments: a wrong type becomes a ToolError the model can act on.
import { ToolError } from './types';

export function requireString(args: Record<string, unknown>, name: string): string {
  const v = args[name];
  if (typeof v !== 'string') throw new ToolError(`${name} is required and must be a string`);
  return v;
}

export function optionalBool(args: Record<string, unknown>, name: string): boolean | undefined {
  const v = args[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new ToolError(`${name} must be true or false`);
  return v;
}

export function optionalInt(args: Record<string, unknown>, name: string, min: number): number | undefined {
  const v = args[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new ToolError(`${name} must be an integer`);
  if (v < min) throw new ToolError(`${name} must be at least ${min}`);
  return v;
}
