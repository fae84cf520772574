-- plagd schema, version 14: related-documents vectors of a document's
-- heaviest terms.
--
-- A model now says how many of each document's heaviest TF-IDF terms its
-- vectors keep (config related.max_terms; 0: every term, what every model
-- before this version did). Vectors of models with different cut-offs are
-- not comparable: the cut-off is one of the settings a run records, so a
-- run after it changed is full and builds a new model and every vector.
alter table related_models add column max_terms integer not null default 0;
