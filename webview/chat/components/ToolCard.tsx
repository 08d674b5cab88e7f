// A tool call: a header button that toggles the card (Enter/Space, as any button), status, the
// command / diff / input / output, the micro-compaction badge, and Approve / Reject while the call
// awaits approval (the approval bar stays visible even when the card is collapsed).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ChatItem, ToolStatus } from '../../../src/protocol';
import { domId, formatInt } from '../../shared/format';
import { useStore } from '../context';
import { escapeInvisible } from '../invisible';
import { DiffView } from './DiffView';
import { OutputBlock } from './OutputBlock';

export type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

export const STATUS_LABEL: Record<ToolStatus, string> = {
  'awaiting-approval': 'awaiting approval',
  running: 'running',
  done: 'done',
  error: 'error',
  rejected: 'rejected',
  cancelled: 'cancelled',
};

/**
 * What the card shows of what would run or change, with invisible and bidi characters escaped
 * visibly, and how many there were (the card is flagged when any).
 */
export function visibleParts(item: ToolItem): { command?: string; diff?: ToolItem['diff']; input: string; found: number } {
  const command = item.command === undefined ? undefined : escapeInvisible(item.command);
  const path = item.diff ? escapeInvisible(item.diff.path) : undefined;
  const unified = item.diff ? escapeInvisible(item.diff.unified, { keepCR: true }) : undefined;
  const found = (command?.found ?? 0) + (path?.found ?? 0) + (unified?.found ?? 0);
  return {
    ...(command ? { command: command.text } : {}),
    ...(item.diff && path && unified ? { diff: { ...item.diff, path: path.text, unified: unified.text } } : {}),
    input: escapeInvisible(item.input, { keepCR: true }).text,
    found,
  };
}

/** A one-line hint of what the call does: the command, the file, or the first string input. */
export function toolSummary(item: ToolItem): string {
  return escapeInvisible(rawSummary(item)).text;
}

function rawSummary(item: ToolItem): string {
  if (item.command) return `$ ${item.command}`;
  if (item.diff) return item.diff.path;
  try {
    const input: unknown = JSON.parse(item.input);
    if (input && typeof input === 'object') {
      for (const v of Object.values(input as Record<string, unknown>))
        if (typeof v === 'string' && v.trim()) return v.trim().split('\n')[0]!;
    }
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return item.input.trim().split('\n')[0] ?? '';
}

export function ToolCard({ item }: { item: ToolItem }) {
  const store = useStore();
  const [userOpen, setUserOpen] = useState<boolean | undefined>(() => store.ui.expanded[item.id]);
  const open = userOpen ?? item.status === 'awaiting-approval';
  const headerRef = useRef<HTMLButtonElement>(null);
  const bodyId = domId('tool-body', item.id);
  const status = STATUS_LABEL[item.status] ?? String(item.status);
  const summary = toolSummary(item);
  const toggle = () => {
    store.setExpanded(item.id, !open);
    setUserOpen(!open);
  };
  const [showInput, setShowInput] = useState(false);
  const inputIsSecondary = Boolean(item.command || item.diff);
  const shown = visibleParts(item);
  return (
    <article class={`card tool status-${item.status}${item.isError ? ' is-error' : ''}`} aria-label={`Tool ${item.name}: ${status}`}>
      <button ref={headerRef} type="button" class="card-header" aria-expanded={open} aria-controls={bodyId} onClick={toggle}>
        <span class="chevron" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <span class="tool-name">{item.name}</span>
        {item.server !== undefined ? (
          <span class="badge mcp-badge" title={`A tool of the MCP server ${item.server}`}>
            MCP: {item.server}
          </span>
        ) : null}
        <span class="tool-summary">{summary.length > 200 ? `${summary.slice(0, 200)}…` : summary}</span>
        {item.truncated ? (
          <span
            class="badge trunc-badge"
            title="What the model now sees of this result was shortened by micro-compaction; the full output is kept in the transcript."
          >
            truncated by micro-compaction ({formatInt(item.truncated.originalChars)} chars)
          </span>
        ) : null}
        <span class={`status-badge s-${item.status}`}>{status}</span>
      </button>
      {shown.found > 0 ? (
        <div class="card-warning invisible-warning" role="alert">
          ⚠ {shown.found} invisible or bidirectional control character{shown.found === 1 ? '' : 's'} in what this call runs or changes,
          shown as &lt;U+…&gt;. Text may not be what it seems: read the escaped form.
        </div>
      ) : null}
      {item.warning ? (
        <div class="card-warning exec-warning" role="alert">
          ⚠ {escapeInvisible(item.warning).text}
        </div>
      ) : null}
      {open ? (
        <div id={bodyId} class="card-body">
          {shown.command !== undefined ? (
            <div class="section">
              <div class="section-label">Command</div>
              <pre class="mono command">{shown.command}</pre>
            </div>
          ) : null}
          {shown.diff ? <DiffView diff={shown.diff} /> : null}
          {inputIsSecondary ? (
            <div class="section">
              <button type="button" class="link-button" aria-expanded={showInput} onClick={() => setShowInput((v) => !v)}>
                {showInput ? 'Hide input' : 'Show input'}
              </button>
              {showInput ? <OutputBlock text={shown.input} label={`Input of ${item.name}`} class="input" /> : null}
            </div>
          ) : (
            <div class="section">
              <div class="section-label">Input</div>
              <OutputBlock text={shown.input} label={`Input of ${item.name}`} class="input" />
            </div>
          )}
          {item.output !== undefined ? (
            <div class="section">
              <div class="section-label">{item.isError ? 'Error output' : 'Output'}</div>
              <OutputBlock text={item.output} label={`Output of ${item.name}`} class={item.isError ? 'error-output' : ''} />
            </div>
          ) : null}
        </div>
      ) : null}
      {item.status === 'awaiting-approval' ? <ApprovalBar item={item} headerRef={headerRef} /> : null}
    </article>
  );
}

function ApprovalBar({ item, headerRef }: { item: ToolItem; headerRef: { current: HTMLButtonElement | null } }) {
  const store = useStore();
  const [sent, setSent] = useState<'approved' | 'rejected' | null>(null);
  const [reasonOpen, setReasonOpen] = useState(false);
  const [reason, setReason] = useState('');
  const reasonRef = useRef<HTMLInputElement>(null);
  // A new version of the item from the host (still awaiting) re-arms the buttons.
  useEffect(() => setSent(null), [item]);
  useEffect(() => {
    if (reasonOpen) reasonRef.current?.focus();
  }, [reasonOpen]);

  const finish = (what: 'approved' | 'rejected') => {
    setSent(what);
    setReasonOpen(false);
    // The buttons disappear: keep keyboard focus on this card.
    headerRef.current?.focus();
  };
  const approve = (always = false) => {
    store.approve(item.id, always);
    finish('approved');
  };
  const reject = (withReason?: string) => {
    store.reject(item.id, withReason);
    finish('rejected');
  };

  if (sent) {
    return (
      <div class="approval sent" role="status">
        {sent === 'approved' ? 'Approved — waiting for the agent…' : 'Rejected — waiting for the agent…'}
      </div>
    );
  }
  return (
    <div class="approval" role="group" aria-label={`Approval for ${item.name}`}>
      <div class="approval-row">
        <span class="approval-question">
          Allow <strong>{item.name}</strong>?
        </span>
        <button type="button" class="button primary" aria-label={`Approve ${item.name}`} onClick={() => approve()}>
          Approve
        </button>
        {item.server !== undefined ? (
          <button
            type="button"
            class="button secondary"
            title={`Approve, and from now on run this tool of ${item.server} without asking (splitpoint.mcp.autoApprove)`}
            onClick={() => approve(true)}
          >
            Always allow
          </button>
        ) : null}
        <button type="button" class="button secondary" aria-label={`Reject ${item.name}`} onClick={() => reject()}>
          Reject
        </button>
        <button type="button" class="link-button" aria-expanded={reasonOpen} onClick={() => setReasonOpen((v) => !v)}>
          Reject with reason…
        </button>
        {item.diff ? (
          <button
            type="button"
            class="link-button open-diff"
            aria-label={`Open the diff of ${escapeInvisible(item.diff.path).text} in the editor`}
            title="Review this change in VS Code's diff editor (Approve / Reject in its title bar)"
            onClick={() => store.openDiff(item.id)}
          >
            Open diff
          </button>
        ) : null}
      </div>
      {reasonOpen ? (
        <div class="approval-row reason-row">
          <input
            ref={reasonRef}
            class="text-input"
            type="text"
            value={reason}
            maxLength={2000}
            placeholder="Tell the agent why (it will see this)"
            aria-label={`Reason for rejecting ${item.name}`}
            onInput={(e) => setReason(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.isComposing) {
                e.preventDefault();
                reject(reason);
              } else if (e.key === 'Escape') {
                e.preventDefault();
                setReasonOpen(false);
              }
            }}
          />
          <button type="button" class="button secondary" onClick={() => reject(reason)}>
            Send rejection
          </button>
        </div>
      ) : null}
    </div>
  );
}
