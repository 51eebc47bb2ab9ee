// Copy to clipboard, and the "shown once" panel for secrets (API keys, webhook secrets) with its copy button.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

export function CopyButton({
  text,
  label = "Copy",
  compact = false,
}: {
  text: string;
  label?: string;
  compact?: boolean;
}) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Clipboard access can be refused (insecure origin, permissions): select the text for a manual copy instead.
      const area = document.createElement("textarea");
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };
  return (
    <button
      type="button"
      class={compact ? "button-ghost button-small" : "button-secondary"}
      onClick={copy}
      aria-label={label}
    >
      {copied ? "Copied" : compact ? "Copy" : label}
      <span class="visually-hidden" aria-live="polite">
        {copied ? "Copied to the clipboard" : ""}
      </span>
    </button>
  );
}

export function ShownOnce({
  label,
  value,
  onDone,
  children,
}: {
  label: string;
  value: string;
  onDone: () => void;
  children?: ComponentChildren;
}) {
  const input = useRef<HTMLInputElement>(null);
  // Shown, the secret takes focus (and is selected, ready to copy): a screen reader reads it out where it appeared.
  useEffect(() => input.current?.focus(), []);
  return (
    <section class="shown-once" aria-labelledby="shown-once-title">
      <h2 id="shown-once-title">{label}</h2>
      <p>This is the only time it is shown. Store it somewhere safe now; it cannot be read again.</p>
      <div class="secret-row">
        <label class="visually-hidden" for="shown-once-value">
          {label}
        </label>
        <input
          id="shown-once-value"
          ref={input}
          class="secret"
          readOnly
          value={value}
          onFocus={() => input.current?.select()}
          spellcheck={false}
        />
        <CopyButton text={value} label="Copy" />
      </div>
      {children}
      <button type="button" class="button-secondary" onClick={onDone}>
        I have stored it
      </button>
    </section>
  );
}
