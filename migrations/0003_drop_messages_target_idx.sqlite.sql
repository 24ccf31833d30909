-- No query reads messages by target alone: history walks messages_pair_idx, resume walks the
-- primary key, dashboards messages_type_idx. Every stored message paid for this index.
DROP INDEX IF EXISTS messages_target_idx;
