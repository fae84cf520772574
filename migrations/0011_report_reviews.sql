-- plagd schema, version 11: what teachers decide about a report.
-- A teacher who excluded a source and counted quotations must find the
-- report as they left it on the next visit, and a committee must see who
-- decided so and when. One row per document: the report's filters as a
-- canonical query string (min, exclude, quotes, bib, blocks, common,
-- words; "" for the defaults), who saved them and when; and whether the
-- report was reviewed, by whom, when, with a note. The row goes with the
-- document (cascade); the audit log keeps every change.

create table report_reviews (
    doc_id       bigint primary key references documents(id) on delete cascade deferrable initially immediate,
    filters      text not null default '' check (length(filters) <= 4000),
    filters_by   text,
    filters_at   timestamptz,
    reviewed     boolean not null default false,
    reviewed_by  text,
    reviewed_at  timestamptz,
    note         text not null default '' check (length(note) <= 4000)
);

create function plagd_audit_report_reviews() returns trigger language plpgsql as $$
declare
    d documents;
begin
    select * into d from documents where id = new.doc_id;
    if (tg_op = 'INSERT' and new.filters_at is not null) or (tg_op = 'UPDATE' and old.filters is distinct from new.filters) then
        perform plagd_audit('report.filters_saved', 'document', new.doc_id, plagd_audit_doc_label(d),
            jsonb_build_object('filters', new.filters));
    end if;
    if (tg_op = 'INSERT' and new.reviewed) or (tg_op = 'UPDATE' and (old.reviewed, old.note) is distinct from (new.reviewed, new.note)) then
        perform plagd_audit(case when new.reviewed then 'report.reviewed' else 'report.review_withdrawn' end,
            'document', new.doc_id, plagd_audit_doc_label(d), jsonb_build_object('note', new.note));
    end if;
    return null;
end $$;

create trigger report_reviews_audit after insert or update on report_reviews
    for each row execute function plagd_audit_report_reviews();
