-- plagd schema, version 17: the related lists' members are not indexed.
--
-- Migration 0016 indexed related_lists.others with GIN so that a hard
-- delete could take the document out of every list holding it at once
-- (plagd_related_drop in the delete trigger). Every run paid for that
-- index: an incremental run of 1,000 changes at 20,000 realistic
-- documents rewrites about 16,000 lists of 20 members, and their upsert
-- took 206 ms with the index (its pending list merged during the upsert,
-- or after it: 183 ms more) against about 70 ms without (docs/PERFORMANCE.md,
-- "What an incremental commit writes").
--
-- A hard delete now leaves the document's place in other lists as it is,
-- as a soft delete does; the next run takes it out of every list holding
-- it, which the engine knows from the lists it keeps in memory (or finds
-- with one scan of related_lists after a restart), and refills the list
-- from its margin or joins it again. Until then no reader sees the
-- document: the view related shows only members that exist, and the API's
-- and the evaluation's queries join documents (only the engine reads the
-- lists as stored, to know what to take out). The document's own list
-- still goes by the foreign key's cascade. Documents deleted while a run
-- computed are treated the same way (engine/late.go).

drop index related_lists_others;

create or replace view related (doc_id, other_id, cosine) as
    select l.doc_id, m.other_id, m.cosine
    from related_lists l, unnest(l.others, l.cosines) as m(other_id, cosine)
    where exists (select 1 from documents d where d.id = m.other_id);

create or replace function plagd_log_change() returns trigger language plpgsql
    security definer set search_path from current as $$
begin
    -- Wakes a daemon that LISTENs, so a run follows changes promptly (debounced there).
    perform pg_notify('plagd_changes', '');
    if tg_op = 'DELETE' then
        -- Wait for a run's commit in progress (0009): then the rows read
        -- below are those of the newest committed run.
        perform pg_advisory_xact_lock_shared(1886152548, 3);
        insert into plagd_changes (doc_id, op) values (old.id, 'delete');
        -- Similarity rows pointing at this document vanish by cascade; remember
        -- whose list lost an entry, so a full top-100 list is recomputed, never left with a hole.
        -- (Related lists keep it until the next run takes it out: see above.)
        insert into plagd_changes (doc_id, op)
            select s.doc_id, 'lost' from similarities s where s.other_id = old.id;
        return old;
    elsif tg_op = 'INSERT' then
        insert into plagd_changes (doc_id, op) values (new.id, 'insert');
        return new;
    else
        insert into plagd_changes (doc_id, op) values (new.id, 'update');
        return new;
    end if;
end $$;

-- Nothing takes a document out of other lists in the database any more.
drop function plagd_related_drop(bigint[]);
