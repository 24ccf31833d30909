// What sits under every connector field: its help line (the input's aria-describedby) and, when the
// last check found one, its problem.
import type { ReactNode } from 'react';

export function FieldNotes({ id, help, error }: { id: string; help: ReactNode; error?: string | undefined }) {
  return (
    <>
      <small id={`${id}-help`} className="cx-help">
        {help}
      </small>
      {error ? (
        <small className="cx-error" role="alert">
          {error}
        </small>
      ) : null}
    </>
  );
}
