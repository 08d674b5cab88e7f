// The timeline's message kinds: what each is called on screen, and the order the legend lists them in.
import type { RowKind } from '../../src/protocol';

export const KIND_LABEL: Record<RowKind, string> = {
  'user-prompt': 'user',
  'assistant-text': 'assistant',
  'tool-call': 'tool call',
  'tool-result': 'tool result',
  thinking: 'thinking',
  summary: 'summary',
  placeholder: 'placeholder',
  artefact: 'artefact',
  instructions: 'instructions',
};

export const KIND_ORDER: RowKind[] = [
  'user-prompt',
  'assistant-text',
  'thinking',
  'tool-call',
  'tool-result',
  'summary',
  'placeholder',
  'artefact',
  'instructions',
];
