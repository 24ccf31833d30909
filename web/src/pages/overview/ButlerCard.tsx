// Butler at a glance: its presence, the approvals waiting for a decision, and (admins) what its actor
// is doing. The hub does not report whether Butler runs with a language model or in safe mode, so
// the card says so rather than guess.
import type { UserView } from '@hub/client';
import { Link } from 'wouter';
import { Fresh, useStaleSince } from '../../components/Freshness';
import { Badge, Button, Card, ErrorNote, Time } from '../../components/ui';
import { useRequest } from '../../hooks/useRequest';
import { useHub } from '../../app/context';
import { PENDING_LIMIT, usePendingApprovals } from './usePendingApprovals';

export function ButlerCard({ butler, admin }: { butler: UserView | undefined; admin: boolean }) {
  const pending = usePendingApprovals();
  const stale = useStaleSince();
  const count = pending.items?.length;
  const oldest = pending.items?.reduce<string | undefined>((min, i) => (!min || i.created_at < min ? i.created_at : min), undefined);

  return (
    <Card
      className="overview-butler"
      title="Butler"
      actions={butler ? <Badge tone={stale ? 'muted' : butler.online ? 'ok' : 'bad'}>{butler.online ? 'Online' : 'Offline'}</Badge> : null}
    >
      <Fresh what="Butler's state">
        <div data-testid="butler-card">
          {butler ? (
            <p className="overview-line">
              {butler.description ?? 'The core agent.'} <span className="muted">({[butler.agent_kind, butler.runtime_kind].filter(Boolean).join(', ')})</span>
            </p>
          ) : (
            <p className="muted">Butler is not listed by the hub.</p>
          )}
          <dl className="overview-facts">
            <div>
              <dt>Pending approvals</dt>
              <dd data-testid="pending-approvals">
                {count === undefined ? (
                  pending.error ? (
                    '—'
                  ) : (
                    '…'
                  )
                ) : (
                  <Link href="/approvals">
                    {count >= PENDING_LIMIT ? `${PENDING_LIMIT}+` : count}
                    {count > 0 && oldest ? (
                      <span className="muted">
                        {' '}
                        (oldest <Time iso={oldest} />)
                      </span>
                    ) : null}
                  </Link>
                )}
              </dd>
            </div>
            {butler?.last_report ? (
              <div>
                <dt>Last report</dt>
                <dd>{butler.last_report}</dd>
              </div>
            ) : null}
            {admin ? <ButlerActivity /> : null}
          </dl>
          <ErrorNote error={pending.error} retry={pending.reload} />
          {butler ? (
            <Link href={`/chat/${butler.id}`} className="btn btn-small">
              Chat with Butler
            </Link>
          ) : null}
        </div>
      </Fresh>
    </Card>
  );
}

/** The Butler actor's snapshot (admins): read on demand, not kept live. */
function ButlerActivity() {
  const { api } = useHub();
  const actor = useRequest(() => api.admin.actor('butler'), [api]);
  const context = actor.data?.context ?? {};
  const number = (key: string) => (typeof context[key] === 'number' ? (context[key] as number) : undefined);
  return (
    <div>
      <dt>Activity</dt>
      <dd className="overview-activity">
        {actor.error ? (
          <ErrorNote error={actor.error} retry={() => void actor.reload()} />
        ) : actor.data ? (
          <>
            <span>
              {actor.data.state}: {number('conversations') ?? 0} conversation{number('conversations') === 1 ? '' : 's'}, {number('open_agent_requests') ?? 0}{' '}
              agent request
              {number('open_agent_requests') === 1 ? '' : 's'} open
            </span>
            <Button className="btn-small" variant="ghost" busy={actor.loading} onClick={() => void actor.reload()}>
              Refresh
            </Button>
          </>
        ) : (
          '…'
        )}
      </dd>
    </div>
  );
}
