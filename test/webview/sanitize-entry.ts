// Test-only bundle: exposes the sanitizer layers on their own so the XSS corpus can be run through
// DOMPurify without the markdown layer in front of it.
import { renderMarkdown, sanitizeHtml } from '../../webview/shared/markdown';

function mount(frag: DocumentFragment): void {
  const div = document.createElement('div');
  div.className = 'md';
  div.append(frag);
  document.getElementById('root')!.append(div);
}

Object.assign(window, {
  __renderRaw: (html: string) => mount(sanitizeHtml(html)),
  __renderMarkdown: (text: string) => mount(renderMarkdown(text)),
});
