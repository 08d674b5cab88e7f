// Small recorded sessions written by the tests themselves: a Claude Code session with two recorded
// compactions (a manual and an auto one), recorded usage per response, a tool exchange and a
// slash-command artefact, shaped like the real Claude Code 2.1 lines in test/fixtures/real-sessions/.
export interface SyntheticClaudeCode {
  text: string;
  /** Genuine prompts a person typed (the slash-command stub is an artefact; summaries are not prompts). */
  prompts: number;
  compactions: Array<{ trigger: 'auto' | 'manual'; preTokens: number }>;
  /** The recorded input (input + cache read + cache creation) of the last response. */
  lastRecordedInput: number;
  recordedCalls: number;
}

export function syntheticClaudeCode(): SyntheticClaudeCode {
  const lines: object[] = [];
  let n = 0;
  let parent: string | null = null;
  let calls = 0;
  let lastInput = 0;
  const base = { isSidechain: false, userType: 'external', cwd: '/work/demo', sessionId: 'synthetic-0001', version: '2.1.39' };
  const at = () => new Date(Date.UTC(2026, 1, 1, 10, 0, n)).toISOString();
  const push = (fields: object): string => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    lines.push({ parentUuid: parent, ...base, ...fields, uuid, timestamp: at() });
    parent = uuid;
    return uuid;
  };
  const user = (content: unknown, extra: object = {}) => push({ type: 'user', message: { role: 'user', content }, ...extra });
  const assistant = (content: unknown[], input: number, cacheRead: number) => {
    calls++;
    lastInput = input + cacheRead + 50;
    const usage = { input_tokens: input, cache_creation_input_tokens: 50, cache_read_input_tokens: cacheRead, output_tokens: 120 };
    push({
      type: 'assistant',
      message: { id: `msg_${calls}`, type: 'message', role: 'assistant', model: 'claude-opus-4-6', content, usage },
    });
  };
  const boundary = (trigger: 'auto' | 'manual', preTokens: number, summary: string) => {
    const logical = parent;
    parent = null;
    push({
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      logicalParentUuid: logical,
      level: 'info',
      compactMetadata: { trigger, preTokens },
    });
    user(`This session is being continued from a previous conversation that ran out of context. ${summary}`, {
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
    });
  };

  user('Find why the CSV export drops the last row.');
  assistant(
    [
      { type: 'text', text: 'Let me read the exporter.' },
      { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: 'src/csv.ts' } },
    ],
    3000,
    9000,
  );
  user([
    {
      type: 'tool_result',
      tool_use_id: 'toolu_01',
      content: 'export function toCsv(rows) { for (let i = 0; i < rows.length - 1; i++) emit(rows[i]); }',
    },
  ]);
  assistant([{ type: 'text', text: 'The loop stops one row early: `i < rows.length - 1`.' }], 200, 12500);
  user('Fix it and add a test.');
  assistant([{ type: 'text', text: 'Fixed the bound and added a test for the last row.' }], 400, 13000);
  user('<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>');
  boundary('manual', 13_650, 'Summary: the CSV exporter dropped its last row (off-by-one); fixed with a test.');
  user('Now make the delimiter configurable.');
  assistant([{ type: 'text', text: 'Added a `delimiter` option, defaulting to a comma.' }], 2500, 4000);
  user('Document it in the README.');
  assistant([{ type: 'text', text: 'Documented the option under "Export".' }], 300, 6800);
  boundary('auto', 7_400, 'Summary: off-by-one fixed; delimiter option added and documented.');
  user('Release it as 1.2.0.');
  assistant([{ type: 'text', text: 'Bumped the version to 1.2.0 and updated the changelog.' }], 1800, 3000);
  return {
    text: lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
    prompts: 5,
    compactions: [
      { trigger: 'manual', preTokens: 13_650 },
      { trigger: 'auto', preTokens: 7_400 },
    ],
    lastRecordedInput: lastInput,
    recordedCalls: calls,
  };
}
