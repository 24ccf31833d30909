-- Butler runs inside the hub: no credential may open a socket or call the API as Butler. Hubs
-- bootstrapped before this gave it an api_token (which an admin could rotate and read back).
DELETE FROM machine_credentials WHERE user_id IN (SELECT id FROM users WHERE role = 'BUTLER');
DELETE FROM human_credentials WHERE user_id IN (SELECT id FROM users WHERE role = 'BUTLER');
