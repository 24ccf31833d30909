// Where a message is written: Enter sends, Shift+Enter starts a new line (and Enter while an input
// method is composing does neither). A draft stays with its conversation when the user looks elsewhere.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Button } from '../../components/ui';

const drafts = new Map<number, string>();
/** Rows the box grows to before it scrolls. */
const MAX_ROWS = 8;

interface Props {
  conversationId: number;
  peerName: string;
  onSend(text: string): void;
}

export function Composer({ conversationId, peerName, onSend }: Props) {
  const [text, setText] = useState(() => drafts.get(conversationId) ?? '');
  const box = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    drafts.set(conversationId, text);
  }, [conversationId, text]);

  // Grow with the text, up to MAX_ROWS lines.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    el.style.height = 'auto';
    const line = parseFloat(getComputedStyle(el).lineHeight) || 20;
    el.style.height = `${Math.min(el.scrollHeight, line * MAX_ROWS + 16)}px`;
  }, [text]);

  function send() {
    const message = text.trim();
    if (!message) return;
    onSend(message);
    setText('');
    drafts.delete(conversationId);
    box.current?.focus();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    send();
  }

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label className="sr-only" htmlFor="composer-text">
        Message to {peerName}
      </label>
      <textarea
        id="composer-text"
        ref={box}
        rows={1}
        value={text}
        placeholder={`Message ${peerName} (Enter sends, Shift+Enter for a new line)`}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        autoFocus
      />
      <Button type="submit" variant="primary" disabled={!text.trim()}>
        Send
      </Button>
    </form>
  );
}
