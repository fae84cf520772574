-- plagd schema, version 3: near-duplicate detection with simhash (seed 002).
--
-- A document's simhash is 64 bits computed from its words with TF-IDF
-- weights. The weights come from a model (document frequencies of a sample of
-- the archive plus the learned bit-flip distribution), so a hash is only
-- comparable with hashes of the same model version. Runs rebuild the model
-- when the archive has doubled or halved since it was built (and in every full
-- run), and then rehash every document in the same committed transaction.

create table neardup_models (
    version      bigserial primary key,
    run_id       bigint not null,                 -- the run that built it
    docs         integer not null,                -- indexed documents when it was built
    sample_docs  integer not null,                -- documents whose words were counted
    df           bytea not null,                  -- sorted (feature uint64, df uint32) pairs, little-endian; df >= 2 only
    flip         real[] not null,                 -- quantiles of |weight change| (neardup.FlipModel.Abs)
    pairs_real   integer not null default 0,      -- near-duplicate pairs of the archive it learned from
    pairs_synth  integer not null default 0,      -- edited copies of sampled documents it learned from
    created_at   timestamptz not null default now()
);

create sequence simhashes_seq;

-- One row per document that has text: written by a run for every document it
-- indexes (run_id set; after a committed run these rows are exactly the
-- indexed documents, hashed with the newest model), and at upload for a
-- pending document (run_id NULL) so that the next upload is compared with it
-- before any run. Failed and deleted documents leave the table in the run
-- that drops them from the index; a hard delete cascades at once.
create table simhashes (
    doc_id   bigint primary key references documents(id) on delete cascade,
    hash     bigint not null,                     -- the 64-bit simhash (as signed)
    weights  bytea not null,                      -- the 64 per-bit weights W_j as float32, little-endian: the query's flip probabilities
    model    bigint not null,                     -- neardup_models.version; 0: no model yet (uniform IDF)
    run_id   bigint,                              -- the run that wrote it; NULL: written at upload
    seq      bigint not null default nextval('simhashes_seq')  -- bumped on every write: processes holding an in-memory index fetch only newer rows
);
create index simhashes_seq_idx on simhashes (seq);
