import { Dialog } from 'radix-ui';
import type { ReactNode } from 'react';

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
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <div className="backdrop" aria-hidden="true" />
        <Dialog.Content className={wide ? 'dialog wide' : 'dialog'}>
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
