-- plagd schema, version 9: documents hard-deleted while a run computes.
-- A run consumes the change log below its boundary (the xmin of a snapshot
-- taken when it starts) and computes from the index of that moment. A
-- document hard-deleted after the boundary is still in that index: the
-- run's lists may name it, and its own list, text and vectors may be among
-- the rows the run writes. Those rows would violate their foreign keys and
-- fail the commit, and a transaction held open anywhere in the cluster
-- keeps the boundary back, so every run would fail while deletes go on.
--
-- The commit therefore takes the advisory lock (LockNamespace, 3) before it
-- writes; a hard delete takes it shared first (below), so deletes wait
-- while a run commits, and the commit knows every document deleted before
-- it: it drops the rows that name them and records the lists that lost an
-- entry ('lost', 'lost_related'), as the delete itself records lists of
-- the committed run. The foreign keys to documents become deferrable, so
-- that the commit writes as always and removes those rows before COMMIT
-- checks the keys.

do $$
declare
    c record;
begin
    for c in
        select conrelid::regclass as tab, conname from pg_constraint
        where contype = 'f' and confrelid = 'documents'::regclass and not condeferrable
    loop
        execute format('alter table %s alter constraint %I deferrable initially immediate', c.tab, c.conname);
    end loop;
end $$;

create or replace function plagd_log_change() returns trigger language plpgsql
    security definer set search_path from current as $$
begin
    -- Wakes a daemon that LISTENs, so a run follows changes promptly (debounced there).
    perform pg_notify('plagd_changes', '');
    if tg_op = 'DELETE' then
        -- Wait for a run's commit in progress (see above): then the rows
        -- read below are those of the newest committed run.
        perform pg_advisory_xact_lock_shared(1886152548, 3);
        insert into plagd_changes (doc_id, op) values (old.id, 'delete');
        -- Similarity rows pointing at this document vanish by cascade; remember
        -- whose list lost an entry, so a full top-100 list is recomputed, never left with a hole.
        insert into plagd_changes (doc_id, op)
            select s.doc_id, 'lost' from similarities s where s.other_id = old.id;
        insert into plagd_changes (doc_id, op)
            select r.doc_id, 'lost_related' from related r where r.other_id = old.id;
        return old;
    elsif tg_op = 'INSERT' then
        insert into plagd_changes (doc_id, op) values (new.id, 'insert');
        return new;
    else
        insert into plagd_changes (doc_id, op) values (new.id, 'update');
        return new;
    end if;
end $$;
