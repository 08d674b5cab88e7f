// The artifact ledger (what a compaction carries: files, commands, errors, the user's instructions)
// and the loss report (what leaves the model's view without surviving anywhere) as structured cards.
// All text is rendered as text.
import type { ComponentChildren } from 'preact';
import type { LedgerView, LossView } from '../../../src/protocol';
import { formatInt, plural } from '../../shared/format';

type Counts = { files: number; commands: number; errors: number; instructions: number; facts?: number };

/** "3 files · 2 commands · 1 error · 4 instructions" (empty parts left out). */
export function countsText(n: Counts): string {
  const parts = [
    n.files > 0 ? plural(n.files, 'file') : '',
    n.commands > 0 ? plural(n.commands, 'command') : '',
    n.errors > 0 ? plural(n.errors, 'error') : '',
    n.instructions > 0 ? plural(n.instructions, 'instruction') : '',
    n.facts ? plural(n.facts, 'fact') : '',
  ];
  return parts.filter(Boolean).join(' · ') || 'empty';
}

/** The counts of a ledger's lists. */
export function ledgerCounts(l: LedgerView): Counts {
  return {
    files: l.files.length,
    commands: l.commands.length,
    errors: l.errors.length,
    instructions: l.instructions.length,
    facts: l.facts?.length ?? 0,
  };
}

/** Nothing is lost: no item in any list and no image or thinking block. */
export function lossIsEmpty(l: LossView): boolean {
  return l.files.length + l.commands.length + l.errors.length + l.instructions.length + l.images + l.thinkingBlocks === 0;
}

/** `onKeep`: offer "Keep as instruction" on each prompt of the instruction list (an archived prompt joins the standing instructions). */
export function LedgerCard(props: { ledger: LedgerView; label: string; which: 'ledger' | 'lost'; onKeep?: (text: string) => void }) {
  const { ledger, label, which, onKeep } = props;
  const f = ledger.folded;
  const folded = f ? f.files + f.commands + f.errors + f.instructions : 0;
  return (
    <div class={`ledger-card ledger-${which}`} data-card={which} role="group" aria-label={label}>
      {ledger.instructions.length > 0 && (
        <LedgerList title={which === 'lost' ? 'Prompts not kept' : 'Your instructions'} field="instructions">
          {ledger.instructions.map((t, i) => (
            <li key={i} class="ledger-instruction">
              {t}
              {onKeep && (
                <button type="button" class="link ledger-keep" data-action="keepInstruction" onClick={() => onKeep(t)}>
                  Keep as instruction
                </button>
              )}
            </li>
          ))}
        </LedgerList>
      )}
      {ledger.facts && ledger.facts.length > 0 && (
        <LedgerList title="Facts kept on request" field="facts">
          {ledger.facts.map((t, i) => (
            <li key={i} class="ledger-fact">
              {t}
            </li>
          ))}
        </LedgerList>
      )}
      {ledger.files.length > 0 && (
        <LedgerList title="Files" field="files">
          {ledger.files.map((file) => (
            <li key={file.path} class="ledger-file">
              <code class="ledger-path">{file.path}</code>{' '}
              <span class="muted" data-counts={`${file.read}/${file.edited}/${file.created}`}>
                {fileCounts(file)} · last {file.lastAction}
              </span>
            </li>
          ))}
        </LedgerList>
      )}
      {ledger.commands.length > 0 && (
        <LedgerList title="Commands" field="commands">
          {ledger.commands.map((c, i) => (
            <li key={i} class="ledger-command">
              <code>{c.command}</code>{' '}
              <span class={c.exitCode === 0 ? 'exit-ok' : c.exitCode === null ? 'muted' : 'exit-fail'}>
                {c.exitCode === null ? 'exit unknown' : `exit ${c.exitCode}`}
              </span>
              {c.runs !== undefined && c.runs > 1 && <span class="muted ledger-runs"> · run {c.runs} times</span>}
            </li>
          ))}
        </LedgerList>
      )}
      {ledger.names && ledger.names.length > 0 && (
        <LedgerList title="Names in use" field="names">
          <li class="ledger-names">
            {ledger.names.map((n, i) => (
              <span key={n}>
                {i > 0 && ', '}
                <code>{n}</code>
              </span>
            ))}
          </li>
        </LedgerList>
      )}
      {ledger.errors.length > 0 && (
        <LedgerList title="Errors" field="errors">
          {ledger.errors.map((e, i) => (
            <li key={i} class={e.resolved ? 'ledger-error resolved' : 'ledger-error'}>
              <span class="ledger-error-state">{e.resolved ? 'resolved' : 'unresolved'}</span> {e.text}
            </li>
          ))}
        </LedgerList>
      )}
      {which === 'lost' && <LossExtras loss={ledger as LossView} />}
      {folded > 0 && f && (
        <p class="muted ledger-folded" data-stat="folded">
          Left out to fit the ledger's budget: {countsText(f)}
        </p>
      )}
    </div>
  );
}

function LossExtras({ loss }: { loss: LossView }) {
  if (loss.images === 0 && loss.thinkingBlocks === 0) return null;
  return (
    <p class="ledger-extras" data-stat="lost-media">
      {[loss.images > 0 ? plural(loss.images, 'image') : '', loss.thinkingBlocks > 0 ? plural(loss.thinkingBlocks, 'thinking block') : '']
        .filter(Boolean)
        .join(' · ')}
    </p>
  );
}

function LedgerList({ title, field, children }: { title: string; field: string; children: ComponentChildren }) {
  return (
    <section class="ledger-section" data-field={field}>
      <h4>{title}</h4>
      <ul>{children}</ul>
    </section>
  );
}

function fileCounts(f: LedgerView['files'][number]): string {
  const parts = [
    f.read > 0 ? `read ${formatInt(f.read)}` : '',
    f.edited > 0 ? `edited ${formatInt(f.edited)}` : '',
    f.created > 0 ? `created ${formatInt(f.created)}` : '',
  ];
  return parts.filter(Boolean).join(', ');
}
