// Claude Code >= 2.1.170 may keep a segment of the conversation through a compaction (session-memory and
// partial compactions: `messagesToKeep`). The boundary records it as `compactMetadata.preservedSegment`:
// `headUuid` and `tailUuid` name the first and last kept line, `anchorUuid` the line they follow in the new
// context (the summary, or the boundary itself). The kept lines are not written again: they stay above the
// boundary with their old parentUuid links, and Claude Code relinks them when it loads the transcript (the
// head under the anchor, the anchor's other children under the tail). After the compaction the model reads
// the boundary's summary, then the kept lines, then what followed.
import type { UuidIndex } from './claudeCodeBranch';
import { isObject } from './json';
import { LOOP_ITEMS_PER_STEP, type ImportSteps } from './steps';

/**
 * For each compact boundary with a preserved segment (by its line), the uuids of the kept lines: the walk
 * from the tail up the parentUuid links to the head. A walk that does not reach the head (a line missing, a
 * cycle) keeps nothing, as Claude Code does, with a warning.
 */
export function* preservedSegments(byUuid: UuidIndex, file: string, warnings: string[]): ImportSteps<Map<number, Set<string>>> {
  const out = new Map<number, Set<string>>();
  const { entries } = byUuid;
  let n = 0;
  for (const l of entries) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    if (l.value.type !== 'system' || l.value.subtype !== 'compact_boundary' || !isObject(l.value.compactMetadata)) continue;
    const segment = l.value.compactMetadata.preservedSegment;
    if (segment === undefined || segment === null) continue;
    const head = isObject(segment) ? segment.headUuid : undefined;
    const tail = isObject(segment) ? segment.tailUuid : undefined;
    if (typeof head !== 'string' || typeof tail !== 'string') {
      warnings.push(
        `${file}:${l.line}: compactMetadata.preservedSegment: expected headUuid and tailUuid; nothing kept through the compaction`,
      );
      continue;
    }
    const kept = new Set<string>();
    let current = byUuid.get(tail);
    while (current && !kept.has(current.value.uuid as string)) {
      if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
      kept.add(current.value.uuid as string);
      if (current.value.uuid === head) break;
      const parent = current.value.parentUuid;
      current = typeof parent === 'string' ? byUuid.get(parent) : undefined;
    }
    if (!kept.has(head)) {
      warnings.push(
        `${file}:${l.line}: compactMetadata.preservedSegment: the lines from ${tail} do not lead back to ${head}; nothing kept through the compaction`,
      );
      continue;
    }
    out.set(l.line, kept);
  }
  return out;
}
