-- plagd schema, version 4: related documents by topic (seed 003, ZOLIP).
--
-- Each indexed document gets a unit-length TF-IDF vector of its stemmed
-- words (stop words removed); "related" are the documents whose vectors
-- have the highest cosine with it. Like the simhashes, vectors depend on a
-- model (document frequencies), versioned and rebuilt when the archive has
-- doubled or halved and in every full run; all are written by runs only,
-- in the run's commit.

create table related_models (
    version     bigserial primary key,
    run_id      bigint not null,
    docs        integer not null,                 -- indexed documents when it was built
    sample_docs integer not null,                 -- documents whose terms were counted
    df          bytea not null,                   -- sorted (term hash uint64, df uint32) pairs, little-endian
    created_at  timestamptz not null default now()
);

-- The vector of every indexed document with terms: term hashes and float32
-- weights, little-endian, terms ascending.
create table related_vectors (
    doc_id   bigint primary key references documents(id) on delete cascade,
    lang     text not null,                        -- the language its words were stemmed as
    terms    bytea not null,
    weights  bytea not null,
    norm     real not null,                        -- L2 norm of the raw tf-idf (ZOLIP's Z-order works on raw values)
    model    bigint not null,
    run_id   bigint not null
);

-- Top related documents per document (engine related_k, default 10),
-- symmetric cosine, ordered by cosine desc, other_id asc.
create table related (
    doc_id    bigint not null constraint related_doc_fk references documents(id) on delete cascade,
    other_id  bigint not null constraint related_other_fk references documents(id) on delete cascade,
    cosine    real not null check (cosine > 0),
    primary key (doc_id, other_id)
);
create index related_other on related (other_id);

-- A hard delete removes related rows by cascade, like similarity rows: the
-- lists that held the document are recorded ('lost_related') so that the
-- next run recomputes them in full instead of leaving them a member short.
alter table plagd_changes drop constraint plagd_changes_op_check;
alter table plagd_changes add constraint plagd_changes_op_check
    check (op in ('insert', 'update', 'delete', 'lost', 'lost_related'));

create or replace function plagd_log_change() returns trigger language plpgsql
    security definer set search_path from current as $$
begin
    -- Wakes a daemon that LISTENs, so a run follows changes promptly (debounced there).
    perform pg_notify('plagd_changes', '');
    if tg_op = 'DELETE' then
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
