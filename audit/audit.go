package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"os/user"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/plagd/plagd/internal/safetext"
)

// Actions are the stable codes of the log's action column, as the
// triggers of migrations 0006 and 0008 write them.
var Actions = []string{
	"document.restricted",   // the restricted flag set (or a document created restricted)
	"document.unrestricted", // the restricted flag cleared
	"document.deleted",      // soft-deleted (deleted_at set)
	"document.restored",     // brought back from a soft delete
	"document.purged",       // the row itself deleted (an integrator's hard delete)
	"user.created",
	"user.role_changed",
	"user.password_reset",   // by someone else: an admin, `plagd user reset`
	"user.password_changed", // by the user themself, on the account page
	"user.disabled",
	"user.enabled",
	"user.renamed",
	"user.deleted",
	"token.created",
	"token.revoked",
	"template.registered", // text documents carry by design (plagd template, the Templates page)
	"template.removed",
}

// TargetKinds are the values of the target_kind column.
var TargetKinds = []string{"document", "user", "token", "template"}

// Actor is who makes a change: a signed-in user (UserID and Name, with the
// request's IP), or the command line (Name "cli:<os user>", no UserID).
type Actor struct {
	UserID int64
	Name   string
	IP     string
}

// CLIActor is the actor of `plagd user` commands: "cli:" and the
// operating-system user running them.
func CLIActor() Actor {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	return Actor{Name: "cli:" + safetext.Line(name, 64)}
}

// Bind makes a the actor of every audited change of tx. It must run in tx
// before the changes (the settings are transaction-local, so they end with
// tx and never leak to the pooled connection's next user).
func Bind(ctx context.Context, tx pgx.Tx, a Actor) error {
	id := ""
	if a.UserID > 0 {
		id = strconv.FormatInt(a.UserID, 10)
	}
	_, err := tx.Exec(ctx, `select set_config('plagd.actor_id', $1, true), set_config('plagd.actor', $2, true),
		set_config('plagd.client_ip', $3, true)`, id, safetext.Line(a.Name, 100), safetext.Line(a.IP, 64))
	if err != nil {
		return fmt.Errorf("bind the audit actor: %w", err)
	}
	return nil
}

// Beginner is what Run needs: a *pgxpool.Pool or *pgx.Conn.
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Run runs fn in a transaction whose changes are recorded as a's, commits
// it, and returns the audit rows the transaction wrote (none when fn changed
// nothing audited). When fn fails, nothing is committed, the change and its
// rows alike.
func Run(ctx context.Context, db Beginner, a Actor, fn func(pgx.Tx) error) ([]Entry, error) {
	var written []Entry
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if err := Bind(ctx, tx, a); err != nil {
			return err
		}
		// Rows this transaction writes get ids from the sequence later, so
		// above every id committed now: a short range of the primary key.
		var before int64
		if err := tx.QueryRow(ctx, `select coalesce(max(id), 0) from audit_log`).Scan(&before); err != nil {
			return fmt.Errorf("read the audit log: %w", err)
		}
		if err := fn(tx); err != nil {
			return err
		}
		var err error
		written, err = query(ctx, tx, `where id > $1 and xact_id = txid_current() order by id`, before)
		return err
	})
	if err != nil {
		return nil, err
	}
	return written, nil
}

// Entry is one row of the audit log.
type Entry struct {
	ID          int64           `json:"id"`
	At          time.Time       `json:"at"`
	ActorID     *int64          `json:"actor_id"` // null for the command line and SQL clients
	Actor       string          `json:"actor"`
	Action      string          `json:"action"`
	TargetKind  string          `json:"target_kind"`
	TargetID    int64           `json:"target_id"`
	TargetLabel string          `json:"target_label"`
	Details     json.RawMessage `json:"details"`
	ClientIP    string          `json:"client_ip,omitempty"`
}

// Target is how an entry names its target in logs and pages: "document 12".
func (e Entry) Target() string { return e.TargetKind + " " + strconv.FormatInt(e.TargetID, 10) }

// Filter selects entries for List. Zero fields select everything.
type Filter struct {
	Action     string // one of Actions, or a prefix ending in "." ("user.")
	TargetKind string // one of TargetKinds
	TargetID   int64  // with TargetKind
	Limit      int    // 1 to 500; 0 = 50
	Offset     int
}

// querier is what pgxpool.Pool, pgx.Conn and pgx.Tx have in common.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// List returns one page of entries matching f, newest first, and whether
// more follow.
func List(ctx context.Context, q querier, f Filter) (entries []Entry, more bool, err error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	f.Limit = min(f.Limit, 500)
	entries, err = query(ctx, q, `
		where ($1 = '' or action = $1 or (right($1, 1) = '.' and starts_with(action, $1)))
		  and ($2 = '' or target_kind = $2)
		  and ($3 = 0 or target_id = $3)
		order by id desc limit $4 offset $5`, f.Action, f.TargetKind, f.TargetID, f.Limit+1, max(f.Offset, 0))
	if err != nil {
		return nil, false, err
	}
	if len(entries) > f.Limit {
		return entries[:f.Limit], true, nil
	}
	return entries, false, nil
}

func query(ctx context.Context, q querier, where string, args ...any) ([]Entry, error) {
	rows, err := q.Query(ctx, `select id, at, actor_id, actor, action, target_kind, target_id, target_label,
		details, coalesce(client_ip, '') from audit_log `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read the audit log: %w", err)
	}
	entries, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Entry, error) {
		var e Entry
		err := r.Scan(&e.ID, &e.At, &e.ActorID, &e.Actor, &e.Action, &e.TargetKind, &e.TargetID, &e.TargetLabel,
			&e.Details, &e.ClientIP)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("read the audit log: %w", err)
	}
	if entries == nil {
		entries = []Entry{}
	}
	return entries, nil
}
