// Pasted diffs and code as code: a chat message that is a unified diff, or lines that read as source,
// arrives without fences, and markdown would fold it into a paragraph. Such text is fenced before it
// is rendered; text that already has fences, or reads as prose, is left as it is.

const DIFF = /^(diff --git |--- a\/|\+\+\+ b\/|@@ -\d+(,\d+)? \+\d+(,\d+)? @@)/m;
const CODE_LINE =
  /([;{}(),]\s*$)|(^\s{2,}\S)|(^\s*(import|export|const|let|var|function|def|class|return|if|for|while|#include|public|private|package|fn|func)\b)/;

export function looksLikeDiff(text: string): boolean {
  return DIFF.test(text);
}

export function looksLikeCode(text: string): boolean {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length < 3) return false;
  return lines.filter((l) => CODE_LINE.test(l)).length / lines.length >= 0.6;
}

/** The text, fenced as `diff` or plain code when it is a pasted diff or code; otherwise unchanged. */
export function fencePasted(text: string): string {
  if (text.includes('```')) return text;
  // A fence longer than any run of backticks inside would be needed; there are none (checked above).
  if (looksLikeDiff(text)) return `\`\`\`diff\n${text.replace(/\n+$/, '')}\n\`\`\``;
  if (looksLikeCode(text)) return `\`\`\`\n${text.replace(/\n+$/, '')}\n\`\`\``;
  return text;
}
