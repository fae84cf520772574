-- plagd schema, version 2: access control for the web UI and the JSON API.
--
-- Ownership: all tables here belong to plagd and are written through package
-- auth (the web server and `plagd user`). None of them feeds the change log:
-- who may see a document has nothing to do with what it is similar to.

-- A restricted document (e.g. an embargoed thesis) still takes part in
-- similarity, so copies of it are found, but only admins see its text; others
-- see that it matched and how much. The change-log trigger on documents does
-- not look at this column, so toggling it does not re-index the document, and
-- it must stay that way.
alter table documents add column restricted boolean not null default false;

-- People who log in. Names are lower-case logins (the check keeps them safe to
-- show in URLs, logs and shell commands); roles are cumulative, in rank order
-- teacher < staff < admin (see auth.Role). Someone who leaves is disabled
-- (`plagd user disable`): their sessions end and their API tokens stop working.
create table users (
    id            bigserial primary key,
    name          text not null unique
                  constraint users_name_format check (name ~ '^[a-z0-9][a-z0-9._@-]{0,63}$'),
    role          text not null check (role in ('admin', 'staff', 'teacher')),
    -- argon2id in PHC form, "$argon2id$v=19$m=...,t=...,p=...$salt$hash": the
    -- parameters travel with the hash, so they can be raised without a migration.
    password_hash text not null,
    disabled      boolean not null default false,  -- no login, no session, no API token works
    created_at    timestamptz not null default now(),
    updated_at    timestamptz not null default now()
);

-- API tokens for scripts and integrations, sent as "Authorization: Bearer ...".
-- Only the SHA-256 of a token is stored, so a database dump or backup does not
-- hand out working credentials. A fast hash is enough, unlike for passwords:
-- tokens are 256 random bits, too many to guess whatever the hash costs, and a
-- fast hash lets every request find its token through the unique index.
create table api_tokens (
    id           bigserial primary key,
    user_id      bigint not null references users(id) on delete cascade,
    name         text not null,                 -- a label: what or who uses the token
    prefix       text not null,                 -- "plagd_" + the first characters, to recognise it in lists
    token_hash   bytea not null unique,         -- sha256 of the whole token
    created_at   timestamptz not null default now(),
    last_used_at timestamptz,                   -- updated at most once a minute
    expires_at   timestamptz,                   -- NULL: never expires
    revoked_at   timestamptz                    -- revoked tokens stay listed, so their use can be traced
);
create index api_tokens_user on api_tokens (user_id);

-- Browser sessions. The cookie holds a random session id; only its SHA-256 is
-- stored, for the same reason as with API tokens: reading this table must not
-- let anyone log in as somebody else. Expiry slides: a session that is used
-- is extended by ttl once less than half of ttl is left (see auth.Store.Session).
create table sessions (
    token_hash   bytea primary key,             -- sha256 of the cookie value
    user_id      bigint not null references users(id) on delete cascade,
    csrf         text not null,                 -- per-session token that forms and cookie-authenticated API writes echo
    created_at   timestamptz not null default now(),  -- login time
    last_seen_at timestamptz not null default now(),  -- updated at most once a minute
    expires_at   timestamptz not null,
    ttl          interval not null check (ttl > interval '0'),  -- the length each extension grants
    ip           text,                          -- where the login came from, for the user's session list
    user_agent   text
);
create index sessions_expires on sessions (expires_at);  -- pruning
create index sessions_user on sessions (user_id);        -- ending a user's sessions on a password change
