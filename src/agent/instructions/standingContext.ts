// What every request carries outside the history (issue 23), put together from its sources: the
// user's setting (splitpoint.instructions), the prompts kept as instructions in this session, the
// workspace's instruction files, and the session's task list. The caps apply across the instruction
// sources in that order (the user's own words first).
import {
  capInstructions,
  DEFAULT_INSTRUCTION_CAPS,
  keptInstructionSources,
  type InstructionCaps,
  type KeptInstruction,
  type StandingContext,
  type TodoItem,
  type UncappedSource,
} from '../../core';
import type { InstructionFiles } from './instructionFiles';

export const SETTING_SOURCE_NAME = 'splitpoint.instructions';

export interface StandingSources {
  files?: InstructionFiles;
  /** splitpoint.instructions ('' or undefined: none). */
  setting?: string;
  kept?: readonly KeptInstruction[];
  todo?: readonly TodoItem[];
  caps?: InstructionCaps;
}

export function standingContext(s: StandingSources): StandingContext {
  const sources: UncappedSource[] = [];
  const setting = s.setting?.trim() ?? '';
  if (setting !== '') sources.push({ name: SETTING_SOURCE_NAME, kind: 'setting', text: setting, sent: true });
  sources.push(...keptInstructionSources(s.kept ?? []));
  sources.push(...(s.files?.sources() ?? []));
  return { instructions: capInstructions(sources, s.caps ?? DEFAULT_INSTRUCTION_CAPS), todo: [...(s.todo ?? [])] };
}
