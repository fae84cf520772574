-- plagd schema, version 7: texts read at upload, kept for the next run.
-- Package ingest reads a new file once, to check it and find its
-- near-duplicates; the run that indexes the document used to read the same
-- bytes again. A row here is the text ingest read, valid only for the same
-- bytes (source_sha is sha256 of documents.content) read by the same reader
-- (reader names the extraction options and the plagd build): the run takes
-- it instead of extracting when both match, and otherwise extracts as
-- always. The run that indexes a document deletes its row in its commit.

create table plagd_extracted (
    doc_id     bigint primary key references documents(id) on delete cascade,
    source_sha bytea not null,
    reader     text not null,
    body       text not null,
    created_at timestamptz not null default clock_timestamp()
);
