// Names for the user ids an authorization request carries (who asked, who decided): "you", an agent
// from the agents store, or, for admins, the user read once from the API. Members may not read other
// humans; they see "user #id".
import { useEffect, useState } from 'react';
import { useHub } from '../../app/context';
import { useStore } from '../../lib/store';

export function usePeople(ids: readonly number[]): (id: number | null) => string {
  const { api, agents, session } = useHub();
  const user = useStore(session.current)!.user;
  const known = useStore(agents.state).byId;
  const [read, setRead] = useState<ReadonlyMap<number, string>>(new Map());
  const wanted = [...new Set(ids)].filter((id) => id !== user.id && !known.has(id) && !read.has(id));
  const key = wanted.sort((a, b) => a - b).join(',');

  useEffect(() => {
    if (user.role !== 'ADMIN' || key === '') return;
    let live = true;
    const ids = key.split(',').map(Number);
    void Promise.all(
      ids.map((id) =>
        api.users.get(id).then(
          (u) => [id, u.username] as const,
          () => [id, `user #${id}`] as const,
        ),
      ),
    ).then((pairs) => {
      if (live) setRead((prev) => new Map([...prev, ...pairs]));
    });
    return () => {
      live = false;
    };
  }, [api, key, user.role]);

  return (id) => {
    if (id === null) return 'nobody';
    if (id === user.id) return 'you';
    return known.get(id)?.username ?? read.get(id) ?? `user #${id}`;
  };
}
