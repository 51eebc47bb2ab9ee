// A button that asks first, in a native modal dialog (focus moves into it, Escape cancels, focus comes back).
import type { ComponentChildren } from "preact";
import { useId, useRef } from "preact/hooks";

export function ConfirmButton(props: {
  label: string;
  /** The accessible name when several such buttons are on a page ("Revoke checkout service"). */
  ariaLabel?: string;
  title: string;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
  /** A row action (small) or a page action (full size). */
  small?: boolean;
  children?: ComponentChildren;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  return (
    <>
      <button
        type="button"
        class={props.small === false ? "button-danger" : "button-danger button-small"}
        aria-label={props.ariaLabel ?? props.label}
        disabled={props.disabled}
        onClick={() => dialog.current?.showModal()}
      >
        {props.label}
      </button>
      <dialog ref={dialog} class="dialog" aria-labelledby={titleId}>
        <form method="dialog">
          <h2 id={titleId}>{props.title}</h2>
          {props.children}
          <div class="actions">
            <button type="submit" value="cancel" class="button-secondary" autofocus>
              Cancel
            </button>
            <button
              type="submit"
              value="confirm"
              class="button-danger"
              onClick={() => {
                props.onConfirm();
              }}
            >
              {props.confirmLabel}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
