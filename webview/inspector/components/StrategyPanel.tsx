// One control per strategy: its parameters (bounded number inputs, reset to defaults), Preview, and
// Apply (inline confirmation with an optional focus for strategies that call the model).
import { useState } from 'preact/hooks';
import type { PlanView, StrategyParamView, StrategyView } from '../../../src/protocol';
import { formatInt, plural } from '../../shared/format';
import { memo } from '../../shared/memo';
import { useStore } from '../context';
import { checkParams, inputText, isEdited, type ParamCheck, type ParamInputs } from '../params';

export interface StrategyPanelProps {
  strategies: readonly StrategyView[];
  inputs: ParamInputs;
  readOnly: boolean;
  busy: boolean;
  /** Strategy whose preview is showing or pending. */
  previewStrategy: string | null;
  plan: PlanView | null;
  pending: boolean;
  highlighted: string | null;
}

/** Drawn again only when a prop changed (a followed session's new rows leave the strategies as they were: state.ts keeps their array). */
export const StrategyPanel = memo(function StrategyPanel(p: StrategyPanelProps) {
  // At most one card asks for confirmation at a time; the focus typed there is the panel's.
  const [confirming, setConfirming] = useState<string | null>(null);
  const [focus, setFocus] = useState('');
  return (
    <section class="panel strategies" aria-labelledby="sp-strategies-title">
      <h2 id="sp-strategies-title">Strategies</h2>
      {p.strategies.map((s) => (
        <StrategyCard
          key={s.name}
          panel={p}
          s={s}
          confirm={confirming === s.name && !p.readOnly}
          focus={focus}
          setFocus={setFocus}
          setConfirming={setConfirming}
        />
      ))}
    </section>
  );
});

interface StrategyCardProps {
  panel: StrategyPanelProps;
  s: StrategyView;
  confirm: boolean;
  focus: string;
  setFocus(focus: string): void;
  setConfirming(name: string | null): void;
}

function StrategyCard({ panel: p, s, confirm, focus, setFocus, setConfirming }: StrategyCardProps) {
  const store = useStore();
  const check = checkParams(p.inputs, s);
  const previewing = p.previewStrategy === s.name;
  const planForThis = previewing && p.plan && p.plan.strategy === s.name ? p.plan : null;
  const titleId = `sp-st-${s.name}`;
  return (
    <section
      class={`strategy${previewing ? ' previewing' : ''}${p.highlighted === s.name ? ' highlighted' : ''}`}
      data-strategy={s.name}
      aria-labelledby={titleId}
    >
      <header class="strategy-head">
        <h3 id={titleId}>{s.title}</h3>
        {s.usesSummarizer && (
          <span class="tag tag-llm" title="Calls the model to write a summary">
            LLM
          </span>
        )}
        {previewing && <span class="tag tag-preview">{p.pending ? 'previewing…' : 'preview'}</span>}
      </header>
      <p class="strategy-desc">{s.description}</p>
      {s.params.length > 0 && (
        <div class="params">
          {s.params.map((param) => (
            <ParamField key={param.name} strategy={s.name} param={param} inputs={p.inputs} error={check.errors[param.name]} />
          ))}
        </div>
      )}
      <div class="strategy-actions">
        <button
          type="button"
          data-action="preview"
          disabled={!check.ok}
          onClick={() => store.preview(s.name)}
          aria-label={`Preview ${s.title}`}
        >
          Preview
        </button>
        {!p.readOnly && (
          <button
            type="button"
            class="secondary"
            data-action="apply"
            disabled={!check.ok || p.busy}
            aria-label={`Apply ${s.title}`}
            aria-expanded={s.usesSummarizer ? confirm : undefined}
            onClick={() => {
              if (s.usesSummarizer) {
                setFocus('');
                setConfirming(confirm ? null : s.name);
              } else store.apply(s.name);
            }}
          >
            {s.usesSummarizer ? 'Apply…' : 'Apply'}
          </button>
        )}
        {s.params.length > 0 && (
          <button
            type="button"
            class="link"
            data-action="reset"
            disabled={!isEdited(p.inputs, s)}
            onClick={() => store.resetParams(s.name)}
            aria-label={`Reset ${s.title} parameters to defaults`}
          >
            Reset
          </button>
        )}
      </div>
      {confirm && (
        <ApplyConfirm
          s={s}
          plan={planForThis}
          check={check}
          busy={p.busy}
          focus={focus}
          setFocus={setFocus}
          setConfirming={setConfirming}
        />
      )}
    </section>
  );
}

interface ParamFieldProps {
  strategy: string;
  param: StrategyParamView;
  inputs: ParamInputs;
  error: string | undefined;
}

function ParamField({ strategy, param, inputs, error }: ParamFieldProps) {
  const store = useStore();
  const id = `sp-p-${strategy}-${param.name}`;
  return (
    <div class="param">
      <label for={id} title={param.description}>
        {param.name}
      </label>
      <input
        id={id}
        type="number"
        data-param={param.name}
        min={param.min}
        max={param.max}
        step={param.integer ? 1 : 'any'}
        value={inputText(inputs, strategy, param)}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-help`}
        onInput={(e) => store.setParam(strategy, param.name, (e.currentTarget as HTMLInputElement).value)}
      />
      <span id={`${id}-help`} class={error ? 'param-error' : 'param-help'} role={error ? 'alert' : undefined}>
        {error ?? param.description}
      </span>
    </div>
  );
}

interface ApplyConfirmProps {
  s: StrategyView;
  plan: PlanView | null;
  check: ParamCheck;
  busy: boolean;
  focus: string;
  setFocus(focus: string): void;
  setConfirming(name: string | null): void;
}

function ApplyConfirm({ s, plan, check, busy, focus, setFocus, setConfirming }: ApplyConfirmProps) {
  const store = useStore();
  return (
    <div class="confirm" role="group" aria-label={`Confirm applying ${s.title}`}>
      <p>
        {plan && !plan.noop
          ? `The model will summarize ${plural(plan.archivedIds.length, 'message')} (${formatInt(plan.summarizerInputTokens)} tokens of input); ` +
            `the full history is saved as a transcript first.`
          : 'The model will write a summary of the archived messages; the full history is saved as a transcript first.'}
      </p>
      <label for={`sp-focus-${s.name}`}>Focus for the summary (optional)</label>
      <input
        id={`sp-focus-${s.name}`}
        type="text"
        data-field="focus"
        maxLength={2000}
        placeholder="e.g. keep the decisions about the cache design"
        value={focus}
        onInput={(e) => setFocus((e.currentTarget as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') setConfirming(null);
        }}
      />
      <div class="strategy-actions">
        <button
          type="button"
          data-action="confirm-apply"
          disabled={!check.ok || busy}
          onClick={() => {
            setConfirming(null);
            store.apply(s.name, focus.trim() || undefined);
          }}
        >
          Summarize and apply
        </button>
        <button type="button" class="secondary" data-action="cancel-apply" onClick={() => setConfirming(null)}>
          Cancel
        </button>
      </div>
    </div>
  );
}
