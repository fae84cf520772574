-- plagd schema, version 12: the flags of a disguised text.
-- A text can be disguised against a checker: letters of another script that
-- look alike, invisible characters between letters, letters spaced apart,
-- text in the file a reader cannot see (package disguise). Each finding is a
-- flag on the document: a JSON array of {kind, count, spans, detail}, spans
-- being byte ranges of the text stored beside it. NULL means no flag.
--
-- A document's flags are a function of its bytes, like its text: the run
-- computes them where it reads the text, stages them with it and stores them
-- with it in its commit (document_texts), so that an incremental run leaves
-- the same flags as a full one. A text read at upload (plagd_extracted)
-- carries the flags ingest found with it.
alter table plagd_text_stage add column flags jsonb;
alter table document_texts add column flags jsonb;
alter table plagd_extracted add column flags jsonb;

-- Texts kept by a build that did not look for disguises would be taken as
-- flag-free: they are dropped (the next run reads those files again).
-- Their reader names another build anyway; this makes it certain.
delete from plagd_extracted;

-- plagd status counts the documents that carry each kind of flag.
create index document_texts_flagged on document_texts (doc_id) where flags is not null;
