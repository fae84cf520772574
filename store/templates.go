package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/internal/safetext"
)

// Template is text that documents carry by design: an assignment prompt, a
// faculty's declaration form. Registered for one kind of document (Kind) or
// for every document (Kind ""), its windows are not indexed for the
// documents it applies to and reports grey them as template text.
type Template struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	Kind      string    `json:"kind,omitempty"` // documents.kind it applies to; "": every document
	Body      string    `json:"body"`
	CreatedBy string    `json:"created_by,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// ErrNoTemplate is the error of removing a template that is not registered.
var ErrNoTemplate = errors.New("no such template")

// ErrBadTemplate is the kind of AddTemplate's error for a template that
// cannot be registered as given (no name, no text); ErrTemplateTooLarge for
// one over MaxTemplateBytes. The error's message says what to change.
var (
	ErrBadTemplate      = errors.New("bad template")
	ErrTemplateTooLarge = errors.New("template too large")
)

// templateError is a refused template: its message, and its kind
// (ErrBadTemplate or ErrTemplateTooLarge) for errors.Is.
type templateError struct {
	kind error
	msg  string
}

func (e *templateError) Error() string { return e.msg }
func (e *templateError) Unwrap() error { return e.kind }

// MaxTemplateBytes bounds a template's text: a prompt or a form, not a thesis.
const MaxTemplateBytes = 256 << 10

// logTemplateScope continues a statement whose CTE t returns the kind of
// a template registered or removed: it logs an update of every live
// document the template applies to (logged) and wakes a listening daemon
// (wake).
const logTemplateScope = `, logged as (
			insert into plagd_changes (doc_id, op)
			select d.id, 'update' from documents d, t
			where d.deleted_at is null and (t.kind is null or d.kind = t.kind)
			returning 1
		), wake as (select pg_notify('plagd_changes', ''))`

// AddTemplate registers a template and, in the same statement, logs an
// update of every live document it applies to, so that the next run indexes
// them without its text. It returns the template's id and the number of
// documents the next run indexes again.
func AddTemplate(ctx context.Context, q Querier, t Template) (id int64, docs int, err error) {
	name := safetext.Line(strings.TrimSpace(t.Name), 200)
	switch {
	case name == "":
		return 0, 0, &templateError{ErrBadTemplate, "a template needs a name (what staff will see on the report, such as \"Faculty declaration\")"}
	case strings.TrimSpace(t.Body) == "":
		return 0, 0, &templateError{ErrBadTemplate, fmt.Sprintf("template %q has no text: give the text documents carry by design", name)}
	case len(t.Body) > MaxTemplateBytes:
		return 0, 0, &templateError{ErrTemplateTooLarge, fmt.Sprintf("template %q has %d bytes of text; a template is a prompt or a form, at most %d bytes", name, len(t.Body), MaxTemplateBytes)}
	}
	body, _ := StorableText(t.Body)
	err = q.QueryRow(ctx, `
		with t as (
			insert into templates (name, kind, body, created_by) values ($1, $2, $3, $4) returning id, kind
		)`+logTemplateScope+`
		select t.id, (select count(*) from logged) from t, wake`,
		name, NullIfEmpty(strings.TrimSpace(t.Kind)), body, NullIfEmpty(t.CreatedBy)).Scan(&id, &docs)
	if err != nil {
		return 0, 0, fmt.Errorf("register template %q: %w", name, err)
	}
	return id, docs, nil
}

// RemoveTemplate unregisters template id and logs an update of every live
// document it applied to, so that the next run indexes their text in full
// again. It returns the number of such documents; ErrNoTemplate when id is
// not registered.
func RemoveTemplate(ctx context.Context, q Querier, id int64) (docs int, err error) {
	var found bool
	err = q.QueryRow(ctx, `
		with t as (
			update templates set deleted_at = now(), deleted_xid = pg_current_xact_id()
			where id = $1 and deleted_at is null returning kind
		)`+logTemplateScope+`
		select exists (select 1 from t), (select count(*) from logged) from wake`, id).Scan(&found, &docs)
	switch {
	case err != nil:
		return 0, fmt.Errorf("remove template %d: %w", id, err)
	case !found:
		return 0, fmt.Errorf("template %d: %w (plagd template list shows the registered ones)", id, ErrNoTemplate)
	}
	return docs, nil
}

// DocumentKinds lists the kinds (documents.kind) of the archive's live
// documents, in order: what a template can be registered for.
func DocumentKinds(ctx context.Context, q Querier) ([]string, error) {
	rows, err := q.Query(ctx, `
		select distinct kind from documents
		where deleted_at is null and kind is not null and kind <> '' order by kind`)
	if err != nil {
		return nil, fmt.Errorf("list document kinds: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// templateColumns are what scanTemplate reads.
const templateColumns = `id, name, coalesce(kind, ''), body, coalesce(created_by, ''), created_at`

// ListTemplates returns the registered templates, oldest first.
func ListTemplates(ctx context.Context, q Querier) ([]Template, error) {
	rows, err := q.Query(ctx, `select `+templateColumns+` from templates where deleted_at is null order by id`)
	if err != nil {
		return nil, fmt.Errorf("list templates: %w", err)
	}
	return pgx.CollectRows(rows, scanTemplate)
}

// TemplatesAt returns the templates a run whose change set ends at the
// snapshot boundary xmin applies: registered below it and not removed
// below it, exactly the templates whose change-log entries the run has
// consumed (see migration 0008).
func TemplatesAt(ctx context.Context, q Querier, xmin uint64) ([]Template, error) {
	rows, err := q.Query(ctx, `select `+templateColumns+` from templates
		where xid < $1::text::xid8 and (deleted_xid is null or deleted_xid >= $1::text::xid8)
		order by id`, fmt.Sprint(xmin))
	if err != nil {
		return nil, fmt.Errorf("read templates: %w", err)
	}
	return pgx.CollectRows(rows, scanTemplate)
}

func scanTemplate(row pgx.CollectableRow) (Template, error) {
	var t Template
	err := row.Scan(&t.ID, &t.Name, &t.Kind, &t.Body, &t.CreatedBy, &t.CreatedAt)
	return t, err
}
