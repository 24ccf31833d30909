-- An agent's report sent to one person (target_id) used to become its last_report, which every
-- member and agent reads (PRESENCE, GET /api/users/agents and /status). Where the stored line can be
-- such a report (the agent's latest report was targeted, and no connect or disconnect has replaced
-- the line since), it is built again from the agent's latest report to everyone, as the hub builds
-- it (runs of spaces and control characters made one space, 512 characters at most), or becomes the
-- connection's state when there is none.
UPDATE users
SET last_report = COALESCE(
  (
    SELECT left(btrim(regexp_replace(
      CASE
        WHEN jsonb_typeof(m.payload::jsonb) = 'string' THEN
          CASE m.type WHEN 'SYSTEM_LOG' THEN '' WHEN 'WEATHER_UPDATE' THEN 'Weather: ' WHEN 'CODE_REVIEW' THEN 'Code review: ' ELSE 'Security alert: ' END
          || (m.payload::jsonb #>> '{}')
        WHEN m.type = 'SYSTEM_LOG' THEN m.payload::jsonb ->> 'content'
        WHEN m.type = 'WEATHER_UPDATE' THEN
          'Weather in ' || (m.payload::jsonb ->> 'location') || ': ' || (m.payload::jsonb ->> 'temperature_c') || ' °C'
          || COALESCE(', ' || NULLIF(m.payload::jsonb ->> 'conditions', ''), '')
        WHEN m.type = 'CODE_REVIEW' THEN
          'Code review (' || replace(m.payload::jsonb ->> 'verdict', '_', ' ') || '): ' || (m.payload::jsonb ->> 'content')
        ELSE 'Security alert (' || (m.payload::jsonb ->> 'severity') || '): ' || (m.payload::jsonb ->> 'content')
      END, '[[:space:][:cntrl:]]+', ' ', 'g')), 512)
    FROM messages m
    WHERE m.id = (
      SELECT MAX(id) FROM messages
      WHERE sender_id = users.id AND target_id IS NULL AND type IN ('SYSTEM_LOG', 'WEATHER_UPDATE', 'CODE_REVIEW', 'SECURITY_ALERT')
    )
  ),
  CASE WHEN online = 1 THEN 'websocket_connected' ELSE 'websocket_disconnected' END
)
WHERE role = 'AGENT'
  AND last_report IS NOT NULL
  AND last_report NOT IN ('websocket_connected', 'websocket_disconnected')
  AND id IN (
    SELECT sender_id FROM messages
    WHERE target_id IS NOT NULL
      AND id IN (
        SELECT MAX(id) FROM messages
        WHERE sender_role = 'AGENT' AND type IN ('SYSTEM_LOG', 'WEATHER_UPDATE', 'CODE_REVIEW', 'SECURITY_ALERT')
        GROUP BY sender_id
      )
  );
