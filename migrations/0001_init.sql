-- plagd schema, version 1.
--
-- Ownership: `documents` belongs to the integrator (plagd's `ingest` and the API
-- write it too). Every other table is owned by plagd and written only by the
-- master inside a run, except `plagd_changes`, which is fed by triggers.

create table documents (
    id           bigserial primary key,
    external_id  text unique,               -- the integrator's key
    title        text,
    author       text,
    kind         text,                      -- thesis, essay, seminar, ...
    year         integer,
    filename     text,                      -- original file name, used to detect the format
    content_type text,                      -- MIME type of content, if known
    content      bytea,                     -- the original file; or NULL when text is given
    text         text,                      -- plain text; used when content is NULL
    created_at   timestamptz not null default now(),
    updated_at   timestamptz not null default now(),
    deleted_at   timestamptz                -- soft delete: the document leaves the index at the next run
);

-- The text that was chunked at the last run that (re)indexed the document.
-- Reports highlight passages in it; runs re-chunk unchanged documents from it
-- when their similarity lists must be recomputed, so it always matches the index.
create table document_texts (
    doc_id     bigint primary key references documents(id) on delete cascade,
    body       text not null,
    run_id     bigint not null
);

-- What the last run did with each document: indexed, or failed with a reason.
-- Documents with a pending entry in plagd_changes are "pending" whatever this says.
create table document_status (
    doc_id     bigint primary key references documents(id) on delete cascade,
    status     text not null check (status in ('indexed', 'failed')),
    error      text,                        -- human-readable reason when failed
    error_kind text,                        -- stable code: empty, corrupt, encrypted, no_text_layer, too_short, ...
    words      integer not null default 0,
    chunks     integer not null default 0,  -- distinct chunk IDs: the similarity denominator
    run_id     bigint not null,
    updated_at timestamptz not null default now()
);
create index document_status_failed on document_status (doc_id) where status = 'failed';

create table runs (
    id              bigserial primary key,
    kind            text not null check (kind in ('full', 'incremental')),
    status          text not null check (status in ('running', 'committed', 'failed', 'aborted')),
    started_at      timestamptz not null default now(),
    finished_at     timestamptz,
    docs_changed    integer not null default 0,  -- change-log documents consumed
    docs_indexed    integer not null default 0,  -- chunked and (re)indexed
    docs_deleted    integer not null default 0,
    docs_failed     integer not null default 0,
    docs_recomputed integer not null default 0,  -- similarity lists recomputed in full
    postings        bigint  not null default 0,  -- (chunk, doc) pairs in the index after the run
    rows_written    bigint  not null default 0,  -- similarity rows inserted
    error           text,
    host            text,
    pid             integer,
    -- the engine settings the results depend on; a run under other settings is full
    settings        text
);

-- Top similarities per document, asymmetric: similarity = shared_chunks / chunks(doc_id).
-- At most top_k (100) rows per doc_id, ordered by shared_chunks desc, other_id asc.
create table similarities (
    doc_id        bigint  not null constraint similarities_doc_fk references documents(id) on delete cascade,
    other_id      bigint  not null constraint similarities_other_fk references documents(id) on delete cascade,
    shared_chunks integer not null check (shared_chunks > 0),
    similarity    double precision not null check (similarity > 0 and similarity <= 1),
    primary key (doc_id, other_id)
);
create index similarities_other on similarities (other_id);

-- Change log. Triggers on documents append here; a run consumes only entries whose
-- writing transaction is older than its snapshot's xmin (so every such transaction
-- has ended) and deletes them in the transaction that commits the run.
create table plagd_changes (
    seq    bigserial primary key,
    doc_id bigint not null,
    op     text not null check (op in ('insert', 'update', 'delete', 'lost')),
    xid    xid8 not null default pg_current_xact_id(),
    at     timestamptz not null default now()
);
create index plagd_changes_xid on plagd_changes (xid);
create index plagd_changes_doc on plagd_changes (doc_id);

-- Texts chunked by a run in progress, copied into document_texts when the run
-- commits. Unlogged: a crash loses only the stage of a run that never committed.
create unlogged table plagd_text_stage (
    run_id bigint not null,
    doc_id bigint not null,
    body   text not null
);
create index plagd_text_stage_run on plagd_text_stage (run_id);

-- Texts are written by every run that indexes them: lz4 compresses them several
-- times faster than the default pglz (measured: 16 s → 6 s for 737 MB of text).
do $$
begin
    alter table documents alter column text set compression lz4;
    alter table documents alter column content set compression lz4;
    alter table document_texts alter column body set compression lz4;
    alter table plagd_text_stage alter column body set compression lz4;
exception when others then
    raise notice 'lz4 compression is not available in this PostgreSQL build; texts stay pglz-compressed';
end $$;

-- One row: identity of this database, so that index files of another database are never used.
create table plagd_meta (
    singleton   boolean primary key default true check (singleton),
    instance_id text not null default md5(random()::text || clock_timestamp()::text),
    created_at  timestamptz not null default now()
);
insert into plagd_meta default values;

-- SECURITY DEFINER: an integrator's role needs rights on documents only, not on
-- plagd's own tables; search_path is pinned so the definer's rights can't be abused.
create function plagd_log_change() returns trigger language plpgsql
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
        return old;
    elsif tg_op = 'INSERT' then
        insert into plagd_changes (doc_id, op) values (new.id, 'insert');
        return new;
    else
        insert into plagd_changes (doc_id, op) values (new.id, 'update');
        return new;
    end if;
end $$;

create trigger documents_log_insert after insert on documents
    for each row execute function plagd_log_change();
create trigger documents_log_update after update on documents
    for each row
    when (old.text is distinct from new.text
       or old.content is distinct from new.content
       or old.filename is distinct from new.filename
       or old.content_type is distinct from new.content_type
       or (old.deleted_at is null) <> (new.deleted_at is null))
    execute function plagd_log_change();
create trigger documents_log_delete before delete on documents
    for each row execute function plagd_log_change();

-- Documents that existed before plagd was installed are pending too.
insert into plagd_changes (doc_id, op) select id, 'insert' from documents;
