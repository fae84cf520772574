-- plagd schema, version 6: the audit log. Who changed what, and when, for
-- the changes that decide who may read what or log in: the restricted flag
-- and deletion of documents, and users' roles, passwords, status and API
-- tokens.
--
-- Rows are written by triggers on the tables they describe, so an audited
-- change without its row is impossible: the row is inserted in the same
-- transaction as the change, by whatever code path or SQL client made it,
-- and both commit or neither does. Who made the change is read from three
-- transaction-local settings (set_config(..., true)) that plagd sets before
-- writing (package audit, audit.Bind):
--
--   plagd.actor_id   the user's id, when a signed-in user acted
--   plagd.actor      the user's name, or 'cli:<os user>' for `plagd user`
--   plagd.client_ip  the caller's address, for web and API requests
--
-- A change made without them (psql, an integrator's own system) is still
-- recorded, with the actor 'db:<database role>'.
--
-- The table is append-only: updates and deletes are refused by a trigger.
-- An operator who must prune it drops that trigger deliberately, which is
-- itself visible in the database's DDL history.

create table audit_log (
    id           bigserial primary key,
    at           timestamptz not null default now(),   -- when the change's transaction ran
    actor_id     bigint,                               -- users.id of the actor; NULL for the CLI and SQL clients.
                                                       -- No foreign key: the row outlives the user.
    actor        text not null,                        -- snapshot: user name, 'cli:<os user>' or 'db:<role>'
    action       text not null
                 constraint audit_log_action_format check (action ~ '^[a-z]+\.[a-z_]+$'),
    target_kind  text not null check (target_kind in ('document', 'user', 'token')),
    target_id    bigint not null,                      -- documents.id, users.id or api_tokens.id
    target_label text not null default '',             -- snapshot: external id and title, user name, token owner and label
    details      jsonb not null default '{}',          -- old and new values
    client_ip    text,
    xact_id      bigint not null default txid_current() -- the writing transaction: groups the rows of one change
);
-- Newest first is the primary key read backwards; the two filters of the
-- admin page and the API have their own. xact_id has none on purpose: audit.Run
-- reads its own rows as those above the highest id committed before it
-- started, a short range of the primary key, and every index is a cost on
-- bulk changes (an integrator soft-deleting thousands of documents).
create index audit_log_target on audit_log (target_kind, target_id, id desc);
create index audit_log_action on audit_log (action, id desc);

create function plagd_audit_append_only() returns trigger language plpgsql as $$
begin
    raise exception 'audit_log is append-only: its rows cannot be changed or deleted';
end $$;
create trigger audit_log_append_only before update or delete on audit_log
    for each row execute function plagd_audit_append_only();
create trigger audit_log_no_truncate before truncate on audit_log
    for each statement execute function plagd_audit_append_only();

-- plagd_audit writes one row, with the actor of the current transaction.
create function plagd_audit(p_action text, p_kind text, p_id bigint, p_label text, p_details jsonb)
returns void language plpgsql as $$
declare
    v_actor_id text := nullif(current_setting('plagd.actor_id', true), '');
begin
    insert into audit_log (actor_id, actor, action, target_kind, target_id, target_label, details, client_ip)
    values (
        case when v_actor_id ~ '^[0-9]{1,18}$' then v_actor_id::bigint end,
        coalesce(nullif(current_setting('plagd.actor', true), ''), 'db:' || session_user),
        p_action, p_kind, p_id, left(coalesce(p_label, ''), 300), coalesce(p_details, '{}'),
        nullif(current_setting('plagd.client_ip', true), ''));
end $$;

-- plagd_audit_doc_label is how a document is named in the log: its external
-- id and title, or its number when it has neither.
create function plagd_audit_doc_label(d documents) returns text language sql immutable as $$
    select coalesce(nullif(concat_ws(' · ', d.external_id, coalesce(d.title, d.filename)), ''), '#' || d.id)
$$;

create function plagd_audit_documents() returns trigger language plpgsql as $$
begin
    if tg_op = 'INSERT' then
        -- only restricted documents reach here (see the trigger's when)
        perform plagd_audit('document.restricted', 'document', new.id, plagd_audit_doc_label(new),
            jsonb_build_object('old', null, 'new', true, 'created', true));
    elsif tg_op = 'UPDATE' then
        if old.restricted is distinct from new.restricted then
            perform plagd_audit(case when new.restricted then 'document.restricted' else 'document.unrestricted' end,
                'document', new.id, plagd_audit_doc_label(new),
                jsonb_build_object('old', old.restricted, 'new', new.restricted));
        end if;
        if old.deleted_at is null and new.deleted_at is not null then
            perform plagd_audit('document.deleted', 'document', new.id, plagd_audit_doc_label(new),
                jsonb_build_object('restricted', new.restricted));
        elsif old.deleted_at is not null and new.deleted_at is null then
            perform plagd_audit('document.restored', 'document', new.id, plagd_audit_doc_label(new),
                jsonb_build_object('deleted_at', old.deleted_at));
        end if;
    else -- DELETE: the row itself is gone (an integrator's hard delete)
        perform plagd_audit('document.purged', 'document', old.id, plagd_audit_doc_label(old),
            jsonb_build_object('restricted', old.restricted, 'was_soft_deleted', old.deleted_at is not null));
    end if;
    return null;
end $$;

create trigger documents_audit_insert after insert on documents
    for each row when (new.restricted) execute function plagd_audit_documents();
create trigger documents_audit_update after update of restricted, deleted_at on documents
    for each row when (old.restricted is distinct from new.restricted or old.deleted_at is distinct from new.deleted_at)
    execute function plagd_audit_documents();
create trigger documents_audit_delete after delete on documents
    for each row execute function plagd_audit_documents();

-- Users. A password change by the user themself (the account page) is
-- user.password_changed; by anyone else (an admin, `plagd user reset`)
-- user.password_reset. Re-hashing a password with stronger parameters at
-- login (auth.Store.Authenticate) keeps the same password and sets
-- plagd.rehash, so it is not logged as a change.
create function plagd_audit_users() returns trigger language plpgsql as $$
begin
    if tg_op = 'INSERT' then
        perform plagd_audit('user.created', 'user', new.id, new.name,
            jsonb_build_object('role', new.role, 'disabled', new.disabled));
    elsif tg_op = 'UPDATE' then
        if old.role is distinct from new.role then
            perform plagd_audit('user.role_changed', 'user', new.id, new.name,
                jsonb_build_object('old', old.role, 'new', new.role));
        end if;
        if old.password_hash is distinct from new.password_hash
           and coalesce(current_setting('plagd.rehash', true), '') <> 'on' then
            perform plagd_audit(
                case when nullif(current_setting('plagd.actor_id', true), '') = new.id::text
                     then 'user.password_changed' else 'user.password_reset' end,
                'user', new.id, new.name, '{}');
        end if;
        if old.disabled is distinct from new.disabled then
            perform plagd_audit(case when new.disabled then 'user.disabled' else 'user.enabled' end,
                'user', new.id, new.name, '{}');
        end if;
        if old.name is distinct from new.name then
            perform plagd_audit('user.renamed', 'user', new.id, new.name,
                jsonb_build_object('old', old.name, 'new', new.name));
        end if;
    else
        perform plagd_audit('user.deleted', 'user', old.id, old.name,
            jsonb_build_object('role', old.role));
    end if;
    return null;
end $$;

create trigger users_audit_insert after insert on users
    for each row execute function plagd_audit_users();
create trigger users_audit_update after update of role, password_hash, disabled, name on users
    for each row when (old.role is distinct from new.role or old.password_hash is distinct from new.password_hash
                       or old.disabled is distinct from new.disabled or old.name is distinct from new.name)
    execute function plagd_audit_users();
create trigger users_audit_delete after delete on users
    for each row execute function plagd_audit_users();

-- API tokens act with their user's role, so creating and revoking one is a
-- change of who may do what.
create function plagd_audit_tokens() returns trigger language plpgsql as $$
declare
    v_user text;
begin
    select name into v_user from users where id = new.user_id;
    if tg_op = 'INSERT' then
        perform plagd_audit('token.created', 'token', new.id, coalesce(v_user, '?') || ': ' || new.name,
            jsonb_build_object('user_id', new.user_id, 'prefix', new.prefix, 'expires_at', new.expires_at));
    else
        perform plagd_audit('token.revoked', 'token', new.id, coalesce(v_user, '?') || ': ' || new.name,
            jsonb_build_object('user_id', new.user_id, 'prefix', new.prefix));
    end if;
    return null;
end $$;

create trigger api_tokens_audit_insert after insert on api_tokens
    for each row execute function plagd_audit_tokens();
create trigger api_tokens_audit_revoke after update of revoked_at on api_tokens
    for each row when (old.revoked_at is null and new.revoked_at is not null)
    execute function plagd_audit_tokens();
