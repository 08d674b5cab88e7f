// A unified diff rendered as text, one element per line with a class for +/-/hunk/meta lines.
import { useState } from 'preact/hooks';
import type { DiffView as Diff } from '../../../src/protocol';
import { formatInt } from '../../shared/format';

const MAX_LINES = 400;

export function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') || line.startsWith('index ')) return 'dl meta';
  if (line.startsWith('@@')) return 'dl hunk';
  if (line.startsWith('+')) return 'dl add';
  if (line.startsWith('-')) return 'dl del';
  if (line.startsWith('\\')) return 'dl meta';
  return 'dl ctx';
}

export function DiffView({ diff }: { diff: Diff }) {
  const [all, setAll] = useState(false);
  const lines = diff.unified.replace(/\n$/, '').split('\n');
  const shown = all ? lines : lines.slice(0, MAX_LINES);
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.startsWith('+') && !l.startsWith('+++')) added++;
    else if (l.startsWith('-') && !l.startsWith('---')) removed++;
  }
  return (
    <div class="diff">
      <div class="diff-header">
        <span class="diff-path">{diff.path}</span>
        {diff.isNewFile ? <span class="badge">new file</span> : null}
        <span class="diff-stat">
          <span class="add-count">+{formatInt(added)}</span> <span class="del-count">−{formatInt(removed)}</span>
        </span>
      </div>
      <pre class="mono diff-body" aria-label={`Diff of ${diff.path}`} tabIndex={0}>
        {shown.map((l, i) => (
          <span key={i} class={lineClass(l)}>
            {l}
            {'\n'}
          </span>
        ))}
      </pre>
      {lines.length > MAX_LINES ? (
        <button type="button" class="link-button" aria-expanded={all} onClick={() => setAll((v) => !v)}>
          {all ? 'Show less' : `Show all ${formatInt(lines.length)} lines`}
        </button>
      ) : null}
    </div>
  );
}
