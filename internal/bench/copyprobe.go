package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// CopyFigures is one COPY of similarity rows, committed.
type CopyFigures struct {
	Table         string  `json:"variant"`
	Rows          int64   `json:"rows"`
	CopySeconds   float64 `json:"copy_seconds"`
	CommitSeconds float64 `json:"commit_seconds"`
	RowsPerSecond float64 `json:"rows_per_s"` // rows / (copy + commit); CopySeconds includes dropping and re-adding keys
}

// simRows generates n similarity rows over the live document ids: each
// document points at the next n/len(ids) ones (distinct, so the primary key
// holds), in doc_id order as the engine writes them.
type simRows struct {
	ids     []int64
	per, n  int
	a, k, i int
	vals    [4]any
}

func (r *simRows) Next() bool {
	if r.i >= r.n {
		return false
	}
	if r.k == r.per {
		r.k, r.a = 0, r.a+1
	}
	b := (r.a + 1 + r.k) % len(r.ids)
	r.vals[0], r.vals[1] = r.ids[r.a], r.ids[b]
	shared := int32(5 + (r.a*7+r.k*13)%200)
	r.vals[2], r.vals[3] = shared, float64(shared)/1000
	r.k++
	r.i++
	return true
}
func (r *simRows) Values() ([]any, error) { return r.vals[:], nil }
func (r *simRows) Err() error             { return nil }

// copyProbe measures COPY into similarities as it is (primary key, two
// foreign keys to documents, the index on other_id), then into copies of
// it without the foreign keys and without any index, so that the cost of
// each is visible. It empties similarities: run it after the engine runs.
func copyProbe(ctx context.Context, pool *pgxpool.Pool, rows int, w io.Writer) ([]CopyFigures, error) {
	var ids []int64
	r, err := pool.Query(ctx, `select id from documents where deleted_at is null order by id`)
	if err != nil {
		return nil, err
	}
	ids, err = pgx.CollectRows(r, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	if len(ids) < 2 {
		return nil, fmt.Errorf("copy probe needs documents, found %d", len(ids))
	}
	per := min(len(ids)-1, (rows+len(ids)-1)/len(ids))
	rows = min(rows, per*len(ids))
	fks, keys, err := similarityConstraints(ctx, pool)
	if err != nil {
		return nil, err
	}
	// Each variant: a table, how to prepare it (own transaction), what to do
	// inside the timed transaction before the COPY (drop) and after it
	// (re-create), so that the cost of the keys shows, and the cost of the
	// cure (dropping the keys for a bulk load and re-adding them, which
	// validates a foreign key with one join instead of a lookup per row).
	type variant struct {
		name, table, create string
		before, after       []string
	}
	variants := []variant{
		{name: "similarities", table: "similarities", create: `truncate similarities`},
		{name: "similarities, FKs re-added", table: "similarities", create: `truncate similarities`,
			before: dropAll(fks), after: addAll(fks)},
		{name: "similarities, all keys re-added", table: "similarities", create: `truncate similarities`,
			before: append(dropAll(fks), dropAll(keys)...), after: append(addAll(keys), addAll(fks)...)},
		{name: "copy without FKs", table: "bench_sim_nofk", create: `create table bench_sim_nofk (like similarities including all)`},
		{name: "copy without keys", table: "bench_sim_bare", create: `create table bench_sim_bare (like similarities)`},
	}
	defer pool.Exec(context.WithoutCancel(ctx), `drop table if exists bench_sim_nofk, bench_sim_bare`)
	var out []CopyFigures
	for _, v := range variants {
		if _, err := pool.Exec(ctx, `drop table if exists bench_sim_nofk, bench_sim_bare`); err != nil {
			return out, err
		}
		if _, err := pool.Exec(ctx, v.create); err != nil {
			return out, fmt.Errorf("%s: %w", v.name, err)
		}
		f := CopyFigures{Table: v.name}
		tx, err := pool.Begin(ctx)
		if err != nil {
			return out, err
		}
		t := time.Now()
		err = execAll(ctx, tx, v.before)
		if err == nil {
			f.Rows, err = tx.CopyFrom(ctx, pgx.Identifier{v.table}, []string{"doc_id", "other_id", "shared_chunks", "similarity"},
				&simRows{ids: ids, per: per, n: rows})
		}
		if err == nil {
			err = execAll(ctx, tx, v.after)
		}
		f.CopySeconds = time.Since(t).Seconds()
		if err != nil {
			tx.Rollback(ctx)
			return out, fmt.Errorf("copy probe %s: %w", v.name, err)
		}
		t = time.Now()
		if err := tx.Commit(ctx); err != nil {
			return out, fmt.Errorf("commit copy probe %s: %w", v.name, err)
		}
		f.CommitSeconds = time.Since(t).Seconds()
		f.RowsPerSecond = float64(f.Rows) / (f.CopySeconds + f.CommitSeconds)
		out = append(out, f)
		fmt.Fprintf(w, "  COPY %d rows, %s: %.2fs + commit %.2fs, %.0f rows/s\n",
			f.Rows, v.name, f.CopySeconds, f.CommitSeconds, f.RowsPerSecond)
	}
	if _, err := pool.Exec(ctx, `truncate similarities`); err != nil {
		return out, err
	}
	return out, nil
}

// constraint is one constraint or index of similarities, as SQL.
type constraint struct{ drop, add string }

// similarityConstraints reads the foreign keys and the primary key and
// indexes of similarities from the catalog, so the probe follows the schema.
func similarityConstraints(ctx context.Context, pool *pgxpool.Pool) (fks, keys []constraint, err error) {
	rows, err := pool.Query(ctx, `
		select contype::text, conname::text, pg_get_constraintdef(oid) from pg_constraint
		where conrelid = 'similarities'::regclass and contype in ('f', 'p') order by conname`)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var typ, name, def string
		if err := rows.Scan(&typ, &name, &def); err != nil {
			rows.Close()
			return nil, nil, err
		}
		id := pgx.Identifier{name}.Sanitize()
		c := constraint{drop: "alter table similarities drop constraint " + id,
			add: "alter table similarities add constraint " + id + " " + def}
		if typ == "f" {
			fks = append(fks, c)
		} else {
			keys = append(keys, c)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows, err = pool.Query(ctx, `
		select indexrelid::regclass::text, pg_get_indexdef(indexrelid) from pg_index i
		where indrelid = 'similarities'::regclass and not exists (
			select 1 from pg_constraint c where c.conindid = i.indexrelid)`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			return nil, nil, err
		}
		keys = append(keys, constraint{drop: "drop index " + name, add: def})
	}
	return fks, keys, rows.Err()
}

func dropAll(cs []constraint) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.drop)
	}
	return out
}

func addAll(cs []constraint) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.add)
	}
	return out
}

func execAll(ctx context.Context, tx pgx.Tx, sqls []string) error {
	for _, q := range sqls {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}
