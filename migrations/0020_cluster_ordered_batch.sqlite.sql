-- Cluster mode runs on PostgreSQL only (see the postgres script: the ordered batch function); SQLite
-- has one writer and needs no commit order across nodes.
SELECT 1;
