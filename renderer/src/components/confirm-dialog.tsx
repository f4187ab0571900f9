import type { ReactNode } from 'react';
import { ModalDialog } from './modal-dialog.tsx';

interface Props {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
}

export function ConfirmDialog({ open, title, children, confirmLabel, onConfirm, onCancel, busy }: Props) {
  return (
    <ModalDialog open={open} onOpenChange={(o) => !o && onCancel()} title={title} description={children}>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="button danger" onClick={onConfirm} disabled={busy}>
          {confirmLabel}
        </button>
      </div>
    </ModalDialog>
  );
}
