-- plagd schema, version 14: related-documents vectors of a document's
-- heaviest terms.
--
-- A model now says how many of each document's heaviest TF-IDF terms its
-- vectors keep (config related.max_terms; 0: every term, what every model
-- before this version did). Vectors of models with different cut-offs are
-- not comparable, so a run whose configuration asks for another cut-off
-- than the stored model's builds a new model and rewrites every vector,
-- as when the archive has doubled.
alter table related_models add column max_terms integer not null default 0;
