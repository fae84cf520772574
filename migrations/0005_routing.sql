-- plagd schema, version 5: the content-routed feature index of live checks
-- (seed 001). Per indexed document its features: the minimum-hash
-- fingerprints of its TTTD chunks (package routing). Written by runs in
-- their commit (deleted and failed documents leave the table), read by the
-- processes that answer live checks, which keep a routed in-memory index
-- and fetch the rows written since they last looked (seq).

create sequence routing_features_seq;

create table routing_features (
    doc_id   bigint primary key references documents(id) on delete cascade,
    features bytea not null,                      -- sorted distinct u64 fingerprints, little-endian
    version  integer not null,                    -- routing.FeatureVersion they were made with
    run_id   bigint not null,
    seq      bigint not null default nextval('routing_features_seq')
);
create index routing_features_seq_idx on routing_features (seq);
