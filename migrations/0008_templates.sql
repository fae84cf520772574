-- plagd schema, version 8: templates staff register.
-- A template is text that documents carry by design, not by copying: an
-- assignment prompt, a faculty's declaration form. Staff register it for one
-- kind of document (documents.kind) or for all (kind NULL). The windows of a
-- document that are windows of a template for its kind are not indexed for
-- that document, and reports grey them as template text.
--
-- Runs must see templates exactly as they see the change log: a run reads
-- the templates whose registration (xid) is below its snapshot's xmin and
-- whose removal (deleted_xid) is not, the same boundary at which it consumes
-- plagd_changes. Registering or removing a template logs an 'update' for
-- every live document it applies to in the same transaction, so those
-- documents are indexed again by the run that first sees the change.
create table templates (
    id          bigserial primary key,
    name        text not null check (name <> ''),
    kind        text,                      -- documents.kind it applies to; NULL: every document
    body        text not null,
    created_by  text,
    created_at  timestamptz not null default now(),
    xid         xid8 not null default pg_current_xact_id(),
    deleted_at  timestamptz,
    deleted_xid xid8
);
create index templates_live on templates (kind) where deleted_at is null;

-- A document whose kind changes falls under other templates: it is indexed
-- again, when a template applies to its old or its new kind.
create function plagd_log_kind_change() returns trigger language plpgsql
    security definer set search_path from current as $$
begin
    if exists (select 1 from templates where deleted_at is null and (kind = old.kind or kind = new.kind)) then
        perform pg_notify('plagd_changes', '');
        insert into plagd_changes (doc_id, op) values (new.id, 'update');
    end if;
    return new;
end $$;

create trigger documents_log_kind after update on documents
    for each row
    when (old.kind is distinct from new.kind)
    execute function plagd_log_kind_change();

-- The audit log (migration 0006) records who registered and removed
-- templates, whatever the path (the web page, the API, plagd template).
alter table audit_log drop constraint audit_log_target_kind_check,
    add constraint audit_log_target_kind_check check (target_kind in ('document', 'user', 'token', 'template'));
create function plagd_audit_templates() returns trigger language plpgsql as $$
begin
    if tg_op = 'INSERT' then
        perform plagd_audit('template.registered', 'template', new.id, new.name,
            jsonb_build_object('kind', new.kind, 'words', array_length(regexp_split_to_array(trim(new.body), '\s+'), 1)));
    elsif old.deleted_at is null and new.deleted_at is not null then
        perform plagd_audit('template.removed', 'template', new.id, new.name, jsonb_build_object('kind', new.kind));
    end if;
    return null;
end $$;

create trigger templates_audit_insert after insert on templates
    for each row execute function plagd_audit_templates();
create trigger templates_audit_update after update of deleted_at on templates
    for each row when (old.deleted_at is distinct from new.deleted_at)
    execute function plagd_audit_templates();
