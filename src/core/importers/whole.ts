// The whole-text import: a session file's text, already read, in any supported format (detected from
// its content). stream.ts reads a file line by line instead and hands whole-document formats here.
import { importAnthropicJson } from './anthropic';
import { importClaudeCode } from './claudeCode';
import { importCodexRollout } from './codex';
import { sniff } from './detect';
import { parseJsonLines, stripBom } from './json';
import { importSplitpointJsonl } from './splitpoint';
import type { ImportResult, SessionFormat } from './types';

/** Which format `text` is in. Throws ImportError for an empty file or one in no supported format. */
export function detectFormat(text: string, fileName: string): SessionFormat {
  return sniff(stripBom(text), fileName).format;
}

/** Parse a session file in any supported format (detected from its content). */
export function importSession(text: string, fileName: string): ImportResult {
  const body = stripBom(text);
  const sniffed = sniff(body, fileName);
  switch (sniffed.format) {
    case 'anthropic-json':
      return importAnthropicJson(sniffed.json, fileName);
    case 'splitpoint-jsonl':
      return importSplitpointJsonl(parseJsonLines(body, fileName), fileName);
    case 'claude-code-jsonl':
      return importClaudeCode(parseJsonLines(body, fileName), fileName);
    case 'codex-rollout-jsonl':
      return importCodexRollout(parseJsonLines(body, fileName), fileName);
  }
}
