// Renders untrusted markdown (see markdown.ts for the sanitization layers). The sanitized fragment
// is inserted directly; Preact never manages this element's children.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { renderMarkdown, renderMarkdownCached } from './markdown';

export function Markdown({ text, streaming = false, class: className }: { text: string; streaming?: boolean; class?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    // Streaming text changes every frame: don't fill the cache with its intermediate states.
    ref.current?.replaceChildren(streaming ? renderMarkdown(text) : renderMarkdownCached(text));
  }, [text, streaming]);
  return <div ref={ref} class={`md${className ? ` ${className}` : ''}`} onClick={onCopyClick} />;
}

function onCopyClick(e: MouseEvent): void {
  const button = e.target instanceof Element ? e.target.closest('button.md-copy') : null;
  if (!(button instanceof HTMLButtonElement)) return;
  const code = button.parentElement?.querySelector('code');
  if (!code) return;
  const done = (label: string) => {
    button.textContent = label;
    setTimeout(() => {
      button.textContent = 'Copy';
    }, 1500);
  };
  navigator.clipboard.writeText(code.textContent ?? '').then(
    () => done('Copied'),
    () => done('Copy failed'),
  );
}
