// A picker's filter over the agents store (chat peers, the monitor's agents): with more agents than the
// store's first page, a pause in typing also searches the hub, and what it finds joins the list.
import { useEffect } from 'react';
import { useHub } from '../app/context';
import { useStore } from '../lib/store';
import { FIRST_PAGE } from '../state/agents';
import { useSettled } from './useRoster';

/** The hint a picker shows while its list holds only the first page (undefined when it holds every agent). */
export function useAgentSearch(filter: string): string | undefined {
  const { agents } = useHub();
  const { complete } = useStore(agents.state);
  const settled = useSettled(filter.trim());
  useEffect(() => {
    if (!complete && settled !== '') void agents.search(settled);
  }, [agents, complete, settled]);
  return complete ? undefined : `The first ${FIRST_PAGE.toLocaleString('en-US')} agents are listed: type a name to search them all.`;
}
