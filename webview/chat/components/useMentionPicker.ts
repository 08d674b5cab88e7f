// The composer's @-mention picker as a hook: what follows the `@` before the caret, the workspace's
// files ranked against it, the highlighted one, its keys (arrows move, Enter / Tab pick, Escape
// closes), and the files picked so far. A pick turns the `@query` in the draft into `@path `.
import type { RefObject } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { rankPaths, type RankedPath } from '../fuzzy';
import type { ChatSnapshot } from '../store';
import type { Draft } from './useDraft';

const MAX_MENTIONS = 20;
const PICKER_ROWS = 8;

interface MentionQuery {
  /** Where the `@` is in the text. */
  start: number;
  query: string;
}

export interface MentionPickerState {
  /** The files picked for the prompt, in the order they were picked. */
  readonly mentions: string[];
  readonly open: boolean;
  readonly results: RankedPath[];
  /** The highlighted result. */
  readonly active: number;
  setActive(index: number): void;
  close(): void;
  clear(): void;
  remove(path: string): void;
  /** The text changed: open, follow or close the picker. */
  typed(text: string, caret: number): void;
  /** True when the key was the picker's (the caller then prevents its default). */
  key(key: string): boolean;
  pick(path: string): void;
}

/** The `@query` just before the caret (at a word start), or null. */
export function mentionAt(text: string, caret: number): MentionQuery | null {
  const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  return m ? { start: caret - m[2]!.length - 1, query: m[2]! } : null;
}

/** `text` with the `@query` at `at` replaced by `@path `, and the caret just after it. */
function insertMention(text: string, at: MentionQuery, path: string): { text: string; caret: number } {
  const inserted = `@${path} `;
  return {
    text: text.slice(0, at.start) + inserted + text.slice(at.start + 1 + at.query.length),
    caret: at.start + inserted.length,
  };
}

export function useMentionPicker(
  files: ChatSnapshot['files'],
  listFiles: () => void,
  draft: Draft,
  box: RefObject<HTMLTextAreaElement>,
  setHint: (h: string) => void,
): MentionPickerState {
  const [mentions, setMentions] = useState<string[]>([]);
  const [picker, setPicker] = useState<MentionQuery | null>(null);
  const [active, setActive] = useState(0);
  const results = useMemo(() => (picker && files ? rankPaths(picker.query, files.list, PICKER_ROWS) : []), [picker, files]);

  const pick = (path: string) => {
    if (!picker) return;
    const next = insertMention(draft.text, picker, path);
    setPicker(null);
    if (!mentions.includes(path)) {
      if (mentions.length >= MAX_MENTIONS) setHint(`At most ${MAX_MENTIONS} files can be attached to one prompt.`);
      else setMentions([...mentions, path]);
    }
    const el = box.current;
    if (!el) return;
    // The text and the caret change together, before the next key: a caret set later (a frame after the
    // re-render) would move keys typed meanwhile to where it lands. The render then finds the value set.
    el.value = next.text;
    el.setSelectionRange(next.caret, next.caret);
    draft.update(next.text);
  };

  const key = (key: string): boolean => {
    if (!picker) return false;
    const n = results.length;
    if (key === 'ArrowDown' || key === 'ArrowUp') {
      if (n > 0) setActive((active + (key === 'ArrowDown' ? 1 : n - 1)) % n);
      return true;
    }
    if ((key === 'Enter' || key === 'Tab') && results[active]) {
      pick(results[active]!.path);
      return true;
    }
    if (key === 'Escape') {
      setPicker(null);
      return true;
    }
    return false;
  };

  const typed = (text: string, caret: number) => {
    const at = mentionAt(text, caret);
    if (at && !picker) listFiles();
    if (at?.query !== picker?.query) setActive(0);
    setPicker(at);
  };

  return {
    mentions,
    open: picker !== null,
    results,
    active,
    setActive,
    close: () => setPicker(null),
    clear: () => (setMentions([]), setPicker(null)),
    remove: (path: string) => setMentions(mentions.filter((m) => m !== path)),
    typed,
    key,
    pick,
  };
}
