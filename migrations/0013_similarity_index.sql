-- plagd schema, version 13: the similarity index of every document.
-- The similarity index is the one figure a document is known by (package
-- report, Index): the share of its text inside verified passages from its
-- sources, under the default exclusions (quotations, block quotes, the
-- bibliography and common text left out), its earlier versions and
-- near-duplicates not counted. Lists sort and filter by it, so it is
-- stored: one row per indexed document, written by the run that last
-- changed something it depends on, with the run's id.
--
-- A run's commit puts in plagd_index_queue every document whose index it
-- may have changed (its text, its list, a source's text or header, the
-- common text); right after COMMIT the run computes their index from the
-- committed texts and lists and empties the queue, batch by batch. A
-- crash in between leaves the queue for the next run, which finishes it
-- first; a report computes the same figure live meanwhile.
create table similarity_index (
    doc_id     bigint primary key references documents(id) on delete cascade deferrable initially immediate,
    run_id     bigint not null,
    value      double precision not null check (value >= 0 and value <= 1),
    sources    integer not null,   -- sources with a passage, counted
    versions   integer not null,   -- earlier versions and near-duplicates, left out
    top_source bigint,             -- the source covering most of the document
    top_share  double precision not null default 0
);
create index similarity_index_value on similarity_index (value desc, doc_id);

create table plagd_index_queue (
    doc_id bigint primary key
);

-- Whether a source is an earlier version depends on the two authors and
-- external ids (report.IsVersion). Changing either changes no text, so no
-- run is due; the document and every document whose list names it are
-- queued instead, and the daemon is woken to compute them.
create function plagd_queue_header_change() returns trigger language plpgsql
    security definer set search_path from current as $$
begin
    insert into plagd_index_queue (doc_id) values (new.id) on conflict do nothing;
    insert into plagd_index_queue (doc_id)
        select s.doc_id from similarities s where s.other_id = new.id
        on conflict do nothing;
    perform pg_notify('plagd_changes', '');
    return new;
end $$;

create trigger documents_queue_header after update on documents
    for each row
    when (old.author is distinct from new.author or old.external_id is distinct from new.external_id)
    execute function plagd_queue_header_change();

-- Documents indexed before this version get their index from the next run.
insert into plagd_index_queue (doc_id) select doc_id from document_texts on conflict do nothing;
