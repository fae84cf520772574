package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/plagd/plagd/internal/safetext"
)

// ReportReview is what teachers decided about a document's report: the
// filters it opens with (a canonical query string of the report page,
// "" for the defaults) and whether it was reviewed, each with who and
// when. The audit log keeps every change (report.filters_saved,
// report.reviewed, report.review_withdrawn).
type ReportReview struct {
	Filters    string     `json:"filters"`
	FiltersBy  string     `json:"filters_by,omitempty"`
	FiltersAt  *time.Time `json:"filters_at,omitempty"`
	Reviewed   bool       `json:"reviewed"`
	ReviewedBy string     `json:"reviewed_by,omitempty"`
	ReviewedAt *time.Time `json:"reviewed_at,omitempty"`
	Note       string     `json:"note,omitempty"`
}

// Saved reports whether filters were saved.
func (r ReportReview) Saved() bool { return r.FiltersAt != nil }

// MaxReviewText bounds saved filters and a review's note.
const MaxReviewText = 4000

// ErrReviewTooLong is the error of filters or a note over MaxReviewText.
var ErrReviewTooLong = errors.New("too long")

// GetReportReview reads document id's review; the zero value when none
// was saved.
func GetReportReview(ctx context.Context, q Querier, id int64) (ReportReview, error) {
	var r ReportReview
	var fby, rby *string
	err := q.QueryRow(ctx, `select filters, filters_by, filters_at, reviewed, reviewed_by, reviewed_at, note
		from report_reviews where doc_id = $1`, id).Scan(&r.Filters, &fby, &r.FiltersAt, &r.Reviewed, &rby, &r.ReviewedAt, &r.Note)
	if errors.Is(err, pgx.ErrNoRows) {
		return ReportReview{}, nil
	}
	r.FiltersBy, r.ReviewedBy = Deref(fby), Deref(rby)
	return r, err
}

// SaveReportFilters stores the filters document id's report opens with
// ("" for the defaults), as saved by who.
func SaveReportFilters(ctx context.Context, q Querier, id int64, filters, who string) error {
	if len(filters) > MaxReviewText {
		return fmt.Errorf("%w: the filters hold %d bytes, at most %d", ErrReviewTooLong, len(filters), MaxReviewText)
	}
	_, err := q.Exec(ctx, `insert into report_reviews (doc_id, filters, filters_by, filters_at)
		values ($1, $2, $3, clock_timestamp())
		on conflict (doc_id) do update set filters = excluded.filters, filters_by = excluded.filters_by,
			filters_at = excluded.filters_at`, id, safetext.Line(filters, MaxReviewText), who)
	return docFK(err, id)
}

// SetReportReviewed marks document id's report reviewed (or not) by who,
// with a note.
func SetReportReviewed(ctx context.Context, q Querier, id int64, reviewed bool, note, who string) error {
	if len(note) > MaxReviewText {
		return fmt.Errorf("%w: the note holds %d bytes, at most %d", ErrReviewTooLong, len(note), MaxReviewText)
	}
	note, _ = StorableText(note)
	_, err := q.Exec(ctx, `insert into report_reviews (doc_id, reviewed, reviewed_by, reviewed_at, note)
		values ($1, $2, $3, clock_timestamp(), $4)
		on conflict (doc_id) do update set reviewed = excluded.reviewed, reviewed_by = excluded.reviewed_by,
			reviewed_at = excluded.reviewed_at, note = excluded.note`, id, reviewed, who, note)
	return docFK(err, id)
}

// docFK turns a foreign-key violation (the document is gone) into
// ErrNoDocument.
func docFK(err error, id int64) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23503" {
		return fmt.Errorf("%w: %d", ErrNoDocument, id)
	}
	return err
}
