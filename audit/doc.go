// Package audit is plagd's audit log: who changed what, and when, for the
// changes that decide who may read what or sign in. Those are the
// restricted flag and the deletion of documents, and users' creation,
// roles, passwords, status and API tokens (the actions are listed in
// Actions).
//
// The rows are written by PostgreSQL triggers (migration 0006) in the
// transaction of the change itself, so an audited change without its row
// cannot be committed, whichever code path or SQL client makes it. What the
// triggers cannot know is who is acting: Bind tells them, by setting
// transaction-local settings (plagd.actor_id, plagd.actor, plagd.client_ip)
// at the start of the transaction, and Run wraps a change in such a
// transaction and returns the rows it produced, so that callers can log
// exactly what was recorded. A change made without Bind is still recorded,
// with the actor "db:<database role>".
//
// The table is append-only (a trigger refuses updates, deletes and
// truncation); List reads it newest first, with filters, for the admin page
// and GET /api/v1/audit.
package audit
