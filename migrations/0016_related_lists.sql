-- plagd schema, version 16: a related list is one row.
--
-- The related table held one row per (document, member) pair, each
-- checked by two foreign keys and indexed twice. An incremental run of
-- 1,000 changes at 20,000 documents rewrites about 12,000 lists; writing
-- their changed pairs (read back, delete, update, insert) took 0.78 s of
-- the run's 1.14 s commit, the insert alone 0.40 s, about 60 % of it
-- the foreign-key checks (PostgreSQL log, docs/PERFORMANCE.md, "A related
-- list is one row"). Stored as one row per list, the same lists are
-- written by one upsert of 12,000 short rows (0.09 s measured on the same
-- data, the GIN index included).
--
-- related_lists holds each document's list best first (cosine desc, then
-- member id asc), its members and their cosines in two arrays of equal
-- length. The document itself is checked by its foreign key; members are
-- not: a hard delete takes the document out of every list that holds it
-- (plagd_related_drop, called by the delete trigger, as the cascade of the
-- pairs' foreign key did), and a run's commit does the same for the
-- documents deleted while it ran (engine/late.go). The GIN index answers
-- "which lists hold these documents".
--
-- The view related keeps the pairs' shape for every reader (the report's
-- panel, the API, the evaluation, ad-hoc SQL).

create table related_lists (
    doc_id  bigint primary key
            constraint related_lists_doc_fk references documents(id) on delete cascade deferrable initially immediate,
    others  bigint[] not null,
    cosines real[] not null,
    check (cardinality(others) = cardinality(cosines))
);
create index related_lists_others on related_lists using gin (others);

insert into related_lists (doc_id, others, cosines)
select doc_id, array_agg(other_id order by cosine desc, other_id), array_agg(cosine order by cosine desc, other_id)
from related group by doc_id;

drop table related;

create view related (doc_id, other_id, cosine) as
    select l.doc_id, m.other_id, m.cosine
    from related_lists l, unnest(l.others, l.cosines) as m(other_id, cosine);

-- plagd_related_drop takes the documents gone out of every list holding
-- one of them, keeping the order of the rest, and returns those lists.
create function plagd_related_drop(gone bigint[]) returns setof bigint language sql as $$
    update related_lists r
    set (others, cosines) = (
        select coalesce(array_agg(m.o order by m.n), '{}'), coalesce(array_agg(m.c order by m.n), '{}')
        from unnest(r.others, r.cosines) with ordinality as m(o, c, n)
        where m.o <> all(gone))
    where r.others && gone
    returning r.doc_id
$$;

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
        insert into plagd_changes (doc_id, op)
            select s.doc_id, 'lost' from similarities s where s.other_id = old.id;
        -- Related lists lose it here (their members have no foreign key),
        -- and are recorded the same way.
        insert into plagd_changes (doc_id, op)
            select d, 'lost_related' from plagd_related_drop(array[old.id]) d where d <> old.id;
        return old;
    elsif tg_op = 'INSERT' then
        insert into plagd_changes (doc_id, op) values (new.id, 'insert');
        return new;
    else
        insert into plagd_changes (doc_id, op) values (new.id, 'update');
        return new;
    end if;
end $$;
