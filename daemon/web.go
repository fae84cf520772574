package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/plagd/plagd/web"
)

// routes wires the daemon's HTTP endpoints. /healthz says the process lives;
// /readyz that it holds the master lock and reaches PostgreSQL; /metrics is
// for Prometheus; the rest are the pages archive staff and teachers read.
func (d *Daemon) routes() http.Handler {
	pages, err := web.Templates()
	if err != nil {
		panic(fmt.Sprintf("embedded templates do not parse: %v", err)) // a build defect, caught by tests
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", d.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(d.metrics.Registry, promhttp.HandlerOpts{}))
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(web.Static())))
	render := func(name string, page func(r *http.Request) (any, error)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			data, err := page(r)
			if errors.Is(err, errNotFound) {
				http.Error(w, err.Error(), http.StatusNotFound)
				return
			}
			if err != nil {
				d.log.Error().Err(err).Str("path", r.URL.Path).Msg("page")
				http.Error(w, "the page could not be built: "+err.Error(), http.StatusInternalServerError)
				return
			}
			var buf bytes.Buffer
			if err := pages[name].Execute(&buf, data); err != nil {
				d.log.Error().Err(err).Str("page", name).Msg("render")
				http.Error(w, "render error", http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = buf.WriteTo(w)
		}
	}
	mux.HandleFunc("GET /{$}", render("overview", d.overviewPage))
	mux.HandleFunc("GET /runs", render("runs", d.runsPage))
	mux.HandleFunc("GET /documents", render("documents", d.documentsPage))
	mux.HandleFunc("GET /documents/{id}", render("document", d.documentPage))
	return mux
}

var errNotFound = errors.New("not found")

func (d *Daemon) readyz(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	ready := d.ready
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := d.pool.Ping(ctx); err != nil {
		http.Error(w, "database unreachable: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	if !ready {
		http.Error(w, "starting", http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ready")
}

type overviewData struct {
	Title   string
	Docs    DocCounts
	Pending int
	Failed  []FailedDoc
	Runs    []RunInfo
	LastRun *RunInfo
	Running bool
	NextRun time.Time
}

func (d *Daemon) overviewPage(r *http.Request) (any, error) {
	st, err := LoadStatus(r.Context(), d.pool, 10, 50)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	running := d.running
	d.mu.Unlock()
	data := overviewData{Title: "Overview", Docs: st.Documents, Pending: st.Pending, Failed: st.Failed,
		Runs: st.Runs, Running: running, NextRun: d.nextRun()}
	for i := range st.Runs {
		if st.Runs[i].Status == "committed" {
			data.LastRun = &st.Runs[i]
			break
		}
	}
	return data, nil
}

func (d *Daemon) runsPage(r *http.Request) (any, error) {
	st, err := LoadStatus(r.Context(), d.pool, 200, 0)
	if err != nil {
		return nil, err
	}
	return overviewData{Title: "Runs", Runs: st.Runs, Pending: st.Pending, NextRun: d.nextRun()}, nil
}

// docView is one line of the documents page.
type docView struct {
	ID                              int64
	ExternalID, Title, Author, Kind string
	Filename, Status, Error         string
	Words, Chunks                   int
	Top                             float64
}

const pageSize = 50

func (d *Daemon) documentsPage(r *http.Request) (any, error) {
	q := r.URL.Query().Get("q")
	status := r.URL.Query().Get("status")
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	offset = max(offset, 0)
	rows, err := d.pool.Query(r.Context(), `
		select d.id, coalesce(d.external_id, ''), coalesce(d.title, ''), coalesce(d.author, ''), coalesce(d.kind, ''),
			coalesce(d.filename, ''), st.status, coalesce(s.error, ''), coalesce(s.words, 0), coalesce(s.chunks, 0),
			coalesce((select max(similarity) from similarities x where x.doc_id = d.id), 0)
		from documents d
		left join document_status s on s.doc_id = d.id
		cross join lateral (select case
			when d.deleted_at is not null then 'deleted'
			when exists (select 1 from plagd_changes c where c.doc_id = d.id and c.op <> 'lost') or s.status is null then 'pending'
			else s.status end as status) st
		where ($1 = '' or d.title ilike '%' || $1 || '%' or d.author ilike '%' || $1 || '%' or d.external_id ilike '%' || $1 || '%')
		  and ($2 = '' or st.status = $2)
		order by d.id desc limit $3 offset $4`, q, status, pageSize+1, offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var docs []docView
	for rows.Next() {
		var x docView
		if err := rows.Scan(&x.ID, &x.ExternalID, &x.Title, &x.Author, &x.Kind, &x.Filename, &x.Status, &x.Error,
			&x.Words, &x.Chunks, &x.Top); err != nil {
			return nil, err
		}
		docs = append(docs, x)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	page := func(off int) string {
		v := url.Values{"q": {q}, "status": {status}, "offset": {strconv.Itoa(off)}}
		return "/documents?" + v.Encode()
	}
	data := struct {
		Title, Query, Status string
		Statuses             []string
		Docs                 []docView
		Prev, Next           string
	}{Title: "Documents", Query: q, Status: status, Statuses: []string{"indexed", "pending", "failed", "deleted"}}
	if len(docs) > pageSize {
		docs = docs[:pageSize]
		data.Next = page(offset + pageSize)
	}
	if offset > 0 {
		data.Prev = page(max(offset-pageSize, 0))
	}
	data.Docs = docs
	return data, nil
}

func (d *Daemon) documentPage(r *http.Request) (any, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%w: %q is not a document id", errNotFound, r.PathValue("id"))
	}
	var doc docView
	err = d.pool.QueryRow(r.Context(), `
		select d.id, coalesce(d.external_id, ''), coalesce(d.title, ''), coalesce(d.author, ''), coalesce(d.kind, ''),
			coalesce(d.filename, ''),
			case when d.deleted_at is not null then 'deleted'
			     when exists (select 1 from plagd_changes c where c.doc_id = d.id and c.op <> 'lost') or s.status is null then 'pending'
			     else s.status end,
			coalesce(s.error, ''), coalesce(s.words, 0), coalesce(s.chunks, 0)
		from documents d left join document_status s on s.doc_id = d.id where d.id = $1`, id).
		Scan(&doc.ID, &doc.ExternalID, &doc.Title, &doc.Author, &doc.Kind, &doc.Filename, &doc.Status, &doc.Error,
			&doc.Words, &doc.Chunks)
	if err != nil {
		return nil, fmt.Errorf("%w: no document %d", errNotFound, id)
	}
	sim, err := Similar(r.Context(), d.pool, id)
	if err != nil {
		return nil, err
	}
	return struct {
		Title   string
		Doc     docView
		Similar []SimilarRow
	}{Title: doc.Title, Doc: doc, Similar: sim}, nil
}
