import type { ReactNode } from 'react';

/** The error of a failed query or mutation, with the API's message (it says what to fix). */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="error-text">
      {error instanceof Error ? error.message : String(error)}
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty-state">
      <h3>{title}</h3>
      {children}
    </div>
  );
}
