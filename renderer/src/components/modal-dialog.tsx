import { Dialog } from 'radix-ui';
import { useRef, type ReactNode } from 'react';

interface Props {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: ReactNode;
  children: ReactNode;
  wide?: boolean;
}

/**
 * Radix's dialog (focus trap, Escape, aria-modal, focus return) with our own backdrop: Radix's
 * Overlay locks scrolling by injecting a <style> element at runtime, which the dashboard's CSP
 * (style-src 'self') refuses.
 */
export function ModalDialog({ open, onOpenChange, title, description, children, wide }: Props) {
  // Our dialogs are opened from state, not by a Radix Trigger, and Radix returns focus only to a
  // Trigger: without this, closing one (Escape included) left keyboard users on <body>.
  const opener = useRef<HTMLElement | null>(null);
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <div className="backdrop" aria-hidden="true" />
        <Dialog.Content
          className={wide ? 'dialog wide' : 'dialog'}
          onOpenAutoFocus={() => {
            opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
          }}
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            const target = opener.current?.isConnected ? opener.current : document.getElementById('main');
            opener.current = null;
            target?.focus();
          }}
        >
          <Dialog.Title className="dialog-title">{title}</Dialog.Title>
          {description ? <Dialog.Description className="muted">{description}</Dialog.Description> : <Dialog.Description className="visually-hidden">{title}</Dialog.Description>}
          {children}
          <Dialog.Close className="dialog-x" aria-label="Close">
            ×
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
