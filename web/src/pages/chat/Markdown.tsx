// Message text as markdown: GitHub-flavoured, line breaks kept as typed (it is chat). Raw HTML in a
// message is shown as text, images become links (no request leaves the page unasked), and the result
// is sanitised again by DOMPurify; links open in a new tab without access to this one. A pasted diff
// or block of code without fences is shown as code (lib/pastedCode.ts).
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { memo, useMemo } from 'react';
import { fencePasted } from '../../lib/pastedCode';
import './Markdown.css';

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html: ({ text }) => escapeHtml(text),
    image: ({ href, text }) => `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`,
  },
});

// Its own instance, so the link hook touches no other use of DOMPurify.
const purify = DOMPurify(window);
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

export function renderMarkdown(text: string): string {
  return purify.sanitize(marked.parse(text) as string, { FORBID_TAGS: ['style', 'form', 'input', 'button', 'img'], ADD_ATTR: ['target'] });
}

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(fencePasted(text)), [text]);
  return <div className="md" dangerouslySetInnerHTML={{ __html: html }} />;
});
