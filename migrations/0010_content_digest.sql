-- plagd schema, version 10: find a byte-identical upload at once.
-- Archive staff re-upload files they already stored (the same PDF from
-- two folders, a second try after a slow upload). The upload paths look
-- for a live document with the same bytes (store.IdenticalDocuments) and
-- warn instead of storing a second copy; this index makes that one index
-- probe instead of hashing every stored file. It is an expression index,
-- not a column, so integrators who write the documents table have
-- nothing new to fill in. Plain-text documents (content is null) are not
-- indexed: they have no file to upload twice.
create index if not exists documents_content_sha256
    on documents (sha256(content))
    where content is not null and deleted_at is null;
