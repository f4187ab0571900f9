import { CopyButton } from './copy-button.tsx';
import { ModalDialog } from './modal-dialog.tsx';

/** A new or rotated key's secret: shown once, never again. */
export function SecretDialog({ secret, title, onClose }: { secret: string | null; title: string; onClose: () => void }) {
  return (
    <ModalDialog open={secret !== null} onOpenChange={(open) => !open && onClose()} title={title}>
      <p className="warning" role="note">
        Copy this key now. It is shown only this once; Patchbay keeps only a hash of it and cannot show it again.
      </p>
      <div className="secret-row">
        <code className="secret" data-testid="new-secret">
          {secret}
        </code>
        {secret ? <CopyButton text={secret} /> : null}
      </div>
      <div className="dialog-actions">
        <button type="button" className="button primary" onClick={onClose}>
          I have copied it
        </button>
      </div>
    </ModalDialog>
  );
}
