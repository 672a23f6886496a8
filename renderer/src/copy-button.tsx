import { useState } from 'preact/hooks';

/** Copies `text`; says so for screen readers too. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone('copied');
    } catch {
      setDone('failed');
    }
    setTimeout(() => setDone('idle'), 2000);
  };
  return (
    <button type="button" class="small" onClick={copy} aria-label={label}>
      {done === 'copied' ? 'Copied' : done === 'failed' ? 'Select and copy' : 'Copy'}
      <span class="visually-hidden" aria-live="polite">
        {done === 'copied' ? 'Copied to the clipboard' : ''}
      </span>
    </button>
  );
}

/** A value to copy, shown in a read-only field (selectable by hand when the clipboard is refused). */
export function CopyField({ value, label }: { value: string; label: string }) {
  return (
    <div class="copy-field">
      <input
        type="text"
        readOnly
        value={value}
        aria-label={label}
        onFocus={(e) => e.currentTarget.select()}
      />
      <CopyButton text={value} label={`Copy ${label}`} />
    </div>
  );
}
