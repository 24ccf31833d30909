// The settings form's state: the copy of the connector it edits (`base`) and the values typed. When
// the page reads a newer copy (after an action, a refresh, a conflict) the form follows it and keeps
// whatever the admin had changed and not saved.
import { useMemo, useState } from 'react';
import type { ConnectorView } from '@hub/client';
import { bodyOf, formFromView, rebase, type FieldName, type FormValues } from './form';

export interface ConnectorForm {
  base: ConnectorView;
  values: FormValues;
  set<K extends FieldName>(field: K, value: FormValues[K]): void;
  /** Starts over from `view` (after a save, or to discard edits). */
  reset(view: ConnectorView): void;
  /** Fields a save would send. */
  changed: FieldName[];
}

export function useConnectorForm(view: ConnectorView): ConnectorForm {
  const [state, setState] = useState(() => ({ base: view, values: formFromView(view) }));
  const [seen, setSeen] = useState(view);
  // A newer copy from the page: adjusted during render, so no frame shows the old copy.
  if (view !== seen) {
    setSeen(view);
    setState((s) => (s.base === view ? s : { base: view, values: rebase(s.base, view, s.values) }));
  }
  const changed = useMemo(() => (state.base.id === 0 ? [] : (Object.keys(bodyOf(state.base, state.values)) as FieldName[])), [state]);
  return {
    base: state.base,
    values: state.values,
    set: (field, value) => setState((s) => ({ ...s, values: { ...s.values, [field]: value } })),
    reset: (next) => setState({ base: next, values: formFromView(next) }),
    changed,
  };
}
