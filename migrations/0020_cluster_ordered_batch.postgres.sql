-- Cluster mode writes each batch with one call of this function, in a statement of its own (no
-- transaction block around it): the commit-order row (0007) is locked, the ids drawn, presence and
-- threads written, the order moved on, and the statement commits. The order is held only while the
-- server runs the batch, never across a round trip to a node: before, each batch held it over three
-- or four, so every node's commits waited on the slowest node's turns (a node starved of CPU, or
-- paused, held them all).
--
-- Messages: the columns as arrays, in batch order (ids follow it); a repeated (sender, local_id) is
-- skipped and the row already stored is returned instead. Presence: one change per user per round
-- (p_round), rounds in order, as the one-statement writer does; a change with a seq applies only over
-- an older one. Threads: each touched once, at its latest time. Answers one jsonb object:
--   prev, last   the commit mark (every id up to prev was final; this batch's ids are at most last)
--   inserted     [id, sender_id, local_id] of each row inserted
--   existing     [id, sender_id, local_id, created_at, conversation_id] of each repeat's stored row
--   presence     [ord, id, username, role, status, online, last_seen_at, last_report] of each change applied
CREATE FUNCTION hub_write_ordered_batch(
  m_type text[], m_sender_id bigint[], m_sender_name text[], m_sender_role text[], m_target_id bigint[],
  m_target_role text[], m_payload text[], m_level text[], m_content text[], m_local_id text[],
  m_conversation_id bigint[], m_stream_id text[], m_created_at text[],
  p_id bigint[], p_status text[], p_online smallint[], p_last_seen_at text[], p_last_report text[],
  p_at text[], p_seq bigint[], p_ord int[], p_round int[],
  t_id bigint[], t_at text[]
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  mark_prev bigint;
  mark_last bigint;
  new_ids bigint[];
  inserted jsonb;
  existing jsonb := '[]'::jsonb;
  applied jsonb := '[]'::jsonb;
  round_rows jsonb;
  keyed int;
  rounds int;
BEGIN
  SELECT last_id INTO mark_prev FROM cluster_commit_order WHERE id = 1 FOR UPDATE;

  WITH ins AS (
    INSERT INTO messages (type, sender_id, sender_name, sender_role, target_id, target_role, payload, level,
                          content, local_id, conversation_id, stream_id, created_at)
    SELECT t.type, t.sender_id, t.sender_name, t.sender_role, t.target_id, t.target_role, t.payload, t.level,
           t.content, t.local_id, t.conversation_id, t.stream_id, t.created_at
    FROM unnest(m_type, m_sender_id, m_sender_name, m_sender_role, m_target_id, m_target_role, m_payload, m_level,
                m_content, m_local_id, m_conversation_id, m_stream_id, m_created_at)
      WITH ORDINALITY AS t(type, sender_id, sender_name, sender_role, target_id, target_role, payload, level,
                           content, local_id, conversation_id, stream_id, created_at, ord)
    ORDER BY t.ord
    ON CONFLICT (sender_id, local_id) WHERE local_id IS NOT NULL DO NOTHING
    RETURNING id, sender_id, local_id
  )
  SELECT coalesce(jsonb_agg(jsonb_build_array(ins.id, ins.sender_id, ins.local_id)), '[]'::jsonb), coalesce(array_agg(ins.id), '{}')
    INTO inserted, new_ids FROM ins;

  -- Repeats only: rows with a local_id that did not go in were stored before (in an earlier batch).
  SELECT count(*) INTO keyed FROM unnest(m_local_id) AS k(local_id) WHERE k.local_id IS NOT NULL;
  IF cardinality(new_ids) < cardinality(m_type) AND keyed > 0 THEN
    SELECT coalesce(jsonb_agg(jsonb_build_array(m.id, m.sender_id, m.local_id, m.created_at, m.conversation_id)), '[]'::jsonb)
      INTO existing
      FROM messages m JOIN unnest(m_sender_id, m_local_id) AS k(sender_id, local_id)
        ON m.sender_id = k.sender_id AND m.local_id = k.local_id
      WHERE NOT (m.id = ANY (new_ids));
  END IF;

  rounds := coalesce((SELECT max(r) FROM unnest(p_round) AS r), 0);
  FOR n IN 1 .. rounds LOOP
    WITH changed AS (
      UPDATE users AS u SET
        status = coalesce(p.status, u.status), online = coalesce(p.online, u.online),
        last_seen_at = coalesce(p.last_seen_at, u.last_seen_at), last_report = coalesce(p.last_report, u.last_report),
        updated_at = p.at, presence_seq = coalesce(p.seq, u.presence_seq)
      FROM unnest(p_id, p_status, p_online, p_last_seen_at, p_last_report, p_at, p_seq, p_ord, p_round)
        AS p(id, status, online, last_seen_at, last_report, at, seq, ord, round)
      WHERE p.round = n AND u.id = p.id AND (p.seq IS NULL OR u.presence_seq < p.seq)
      RETURNING jsonb_build_array(p.ord, u.id, u.username, u.role, u.status, u.online, u.last_seen_at, u.last_report) AS change
    )
    SELECT coalesce(jsonb_agg(changed.change), '[]'::jsonb) INTO round_rows FROM changed;
    applied := applied || round_rows;
  END LOOP;

  UPDATE conversation_threads AS c SET last_message_at = t.at
  FROM (SELECT DISTINCT ON (x.id) x.id, x.at FROM unnest(t_id, t_at) WITH ORDINALITY AS x(id, at, ord) ORDER BY x.id, x.ord DESC) AS t
  WHERE c.id = t.id;

  mark_last := mark_prev;
  IF cardinality(new_ids) > 0 THEN
    mark_last := greatest(mark_prev, (SELECT max(i) FROM unnest(new_ids) AS i));
    IF mark_last > mark_prev THEN
      UPDATE cluster_commit_order SET last_id = mark_last WHERE id = 1;
    END IF;
  END IF;

  RETURN jsonb_build_object('prev', mark_prev, 'last', mark_last, 'inserted', inserted, 'existing', existing, 'presence', applied);
END
$$;
